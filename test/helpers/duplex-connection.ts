// A connection that is a bare stream, not a socket (no handle), as a server may be given one:
// what the test pushes into `stream` is what the other side reads, and what that side writes is
// kept in order for the test to read.
import { Duplex } from "node:stream";

export interface DuplexConnection {
  stream: Duplex;
  /** Every chunk written to the stream, in order. */
  written: Buffer[];
  /** What was written so far, as latin1 text (byte for byte). */
  text(): string;
}

export function duplexConnection(): DuplexConnection {
  const written: Buffer[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk);
      done();
    },
  });
  return { stream, written, text: () => Buffer.concat(written).toString("latin1") };
}
