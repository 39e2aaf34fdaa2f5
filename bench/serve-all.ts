// `npm start` (server/main.ts: all three APIs in one process) with an IPC channel for the
// benchmark: reports {ready} after "Ready." and answers {memory} like bench/serve.ts.
const log = console.log;
console.log = (...args: unknown[]) => {
  log(...args);
  if (String(args[0]).startsWith("Ready.")) process.send!({ ready: 0 });
};
process.on("message", (message: { id: number; memory?: boolean; gc?: boolean }) => {
  if (message.gc !== false) for (let i = 0; i < 3; i++) globalThis.gc?.();
  process.send!({ id: message.id, memory: process.memoryUsage() });
});
await import("../server/main.ts");
