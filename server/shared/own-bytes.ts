// Bytes kept for long (the answers of server/shared/answer-memo.ts) in memory of their own. Node
// gives a short Buffer (under 4 KiB: Buffer.from, Buffer.allocUnsafe) a slice of a shared 8 KiB
// pool, and a kept slice keeps its whole pool alive: a count of kept bytes would then say far less
// than they hold.

/** The bytes themselves when they have their memory to themselves, else a copy that has. */
export function ownedBytes(bytes: Buffer): Buffer {
  // A view as long as its memory is all of it.
  if (bytes.buffer.byteLength === bytes.length) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}
