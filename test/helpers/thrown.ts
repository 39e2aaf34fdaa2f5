// What a call throws or a promise rejects with, for tests that look at the error itself (its class,
// status and words). The test fails when nothing is thrown.

export function thrownBy(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw; nothing was thrown");
}

export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection; the promise resolved");
    },
    (error: unknown) => error,
  );
}
