// Answers of reads, kept as the exact response that was sent until the state they were read from
// changes. A hot read (the same chain, the same page of teams, the same list of roles asked again
// and again) then costs its authentication and request checks, not its rendering, serializing and
// response validation: profiled, those were most of a read's time (docs/benchmarks.md).
//
// What makes a kept answer right to send again:
// - it is looked up only after the service authenticated and authorized the request, exactly as
//   for any other request (the services call serve() from their handler step);
// - its key is the method, the URL and every request header as received, so a request that differs
//   in anything a handler could read is a different key;
// - it is kept only while the service's state version (a counter every write moves) is the one it
//   was read at, and only if that version did not move while it was being answered;
// - it is kept only when it was sent with a body and a status under 500 (a response that failed
//   validation is a 500 and never kept), after the response validator (when on) passed it.
// Bounded by bytes and count; the answers used least recently go first (lru-cache: a Map with its
// oldest entry deleted for each new one, the way this was first written, walked the deleted entries
// V8 leaves at its front on every insertion: about 7 µs a request once full).
//
// An answer is kept the second time its request comes (at one state version), not the first: a
// request made once (a read with a query of its own, a scan of every page) costs no copy of its
// answer and does not push out the answers of requests that do come again. Only the keys of
// requests seen once are held for that, bounded too (an eighth of the bytes, the same count).
import type { Request, Response } from "express";
import { LRUCache } from "lru-cache";
import { ownedBytes } from "./own-bytes.ts";

export interface AnswerMemoOptions {
  /** The service's state version: any write changes it. */
  version: () => number;
  /** Bytes of answers (keys, headers and bodies) kept at most. */
  maxBytes?: number;
  /** Answers kept at most. */
  maxAnswers?: number;
  /** What changes in every answer though the state does not (a request id): applied to a kept body before it is sent again. */
  perAnswer?: (body: Buffer) => Buffer;
}

interface KeptAnswer {
  status: number;
  headers: [string, string | number | string[]][];
  body: Buffer;
  bytes: number;
}

export const DEFAULT_MEMO_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MEMO_ANSWERS = 10_000;

export class AnswerMemo {
  readonly #version: () => number;
  readonly #perAnswer: ((body: Buffer) => Buffer) | undefined;
  /** The answers kept, each counted by its bytes (key, headers and body); one over a quarter of them is not kept. */
  readonly #answers: LRUCache<string, KeptAnswer>;
  /** Each request's key, built once: the kept stage and the handler's serve() both look it up. */
  readonly #keys = new WeakMap<Request, string>();
  /** Keys of requests answered once at this version, and the bytes each counts for: their next answer is kept. */
  readonly #seenOnce: LRUCache<string, number>;
  #keptAt: number | undefined;

  constructor(options: AnswerMemoOptions) {
    this.#version = options.version;
    this.#perAnswer = options.perAnswer;
    const maxBytes = options.maxBytes ?? DEFAULT_MEMO_BYTES;
    const max = options.maxAnswers ?? DEFAULT_MEMO_ANSWERS;
    // lru-cache takes whole, positive bounds (a maxSize of 0 would mean none).
    const bytes = (n: number) => Math.max(1, Math.floor(n));
    this.#answers = new LRUCache({ max, maxSize: bytes(maxBytes), maxEntrySize: bytes(maxBytes / 4), sizeCalculation: (answer) => answer.bytes });
    this.#seenOnce = new LRUCache({ max, maxSize: bytes(maxBytes / 8), maxEntrySize: bytes(maxBytes / 8), sizeCalculation: (bytes) => bytes });
  }

  /** Bytes and count of the answers kept (for the current version), and of the keys of requests seen once. */
  get size(): { answers: number; bytes: number; seenOnce: number; seenOnceBytes: number } {
    this.#current();
    return { answers: this.#answers.size, bytes: this.#answers.calculatedSize, seenOnce: this.#seenOnce.size, seenOnceBytes: this.#seenOnce.calculatedSize };
  }

  /**
   * Sends the kept answer to this request if there is one; otherwise runs `answer` (which responds
   * as any handler does) and keeps what it sends.
   */
  serve(req: Request, res: Response, answer: () => unknown): unknown {
    const version = this.#current();
    const key = this.#keyOf(req);
    const kept = this.#answers.get(key);
    if (kept) return this.#send(res, kept);
    if (this.#seenOnce.delete(key)) this.#capture(key, version, res);
    else this.#seenOnce.set(key, keyBytes(key));
    return answer();
  }

  /**
   * Sends the kept answer to this request if there is one (true), before the request checks: a kept
   * answer was sent to a request with the same method, URL and headers, which passed them, and
   * was authorized again just now (the pipeline runs this after authorization). False: nothing kept.
   */
  sendKept(req: Request, res: Response): boolean {
    this.#current();
    const kept = this.#answers.get(this.#keyOf(req));
    if (!kept) return false;
    this.#send(res, kept);
    return true;
  }

  #keyOf(req: Request): string {
    let key = this.#keys.get(req);
    if (key === undefined) {
      key = exactRequestKey(req);
      this.#keys.set(req, key);
    }
    return key;
  }

  /** The version now, forgetting every answer read at another one. */
  #current(): number {
    const version = this.#version();
    if (version !== this.#keptAt) {
      this.#answers.clear();
      this.#seenOnce.clear();
      this.#keptAt = version;
    }
    return version;
  }

  #send(res: Response, kept: KeptAnswer): void {
    res.statusCode = kept.status;
    for (const [name, value] of kept.headers) res.setHeader(name, value);
    const body = this.#perAnswer ? this.#perAnswer(kept.body) : kept.body;
    res.setHeader("Content-Length", body.length);
    res.end(body);
  }

  /** Keeps what the handler sends, when it is an answer worth keeping and the state did not move. */
  #capture(key: string, version: number, res: Response): void {
    const memo = this;
    // Headers set before the handler (CORS, Cache-Control) are set again for every request: not kept.
    const before = new Map(Object.entries(res.getHeaders()));
    const end = res.end;
    res.end = function keep(this: Response, ...args: unknown[]) {
      res.end = end;
      const [chunk] = args;
      if ((typeof chunk === "string" || Buffer.isBuffer(chunk)) && res.statusCode < 500 && version === memo.#version()) {
        const headers = Object.entries(res.getHeaders()).filter(
          ([name, value]) => name !== "content-length" && name !== "date" && before.get(name) !== value,
        ) as KeptAnswer["headers"];
        const encoding = typeof args[1] === "string" ? (args[1] as BufferEncoding) : "utf8";
        // Kept in memory of its own, so that the bytes counted are the bytes held.
        memo.#keep(key, { status: res.statusCode, headers, body: ownedBytes(typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk) });
      }
      return (end as (...a: unknown[]) => Response).apply(this, args);
    } as Response["end"];
  }

  #keep(key: string, answer: Omit<KeptAnswer, "bytes">): void {
    const bytes = keyBytes(key) + answer.body.length + answer.headers.reduce((sum, [name, value]) => sum + name.length + String(value).length, 0);
    this.#answers.set(key, { ...answer, bytes });
  }
}

/** What a key counts for: two bytes a character. */
function keyBytes(key: string): number {
  return key.length * 2;
}

/**
 * A request as its sender wrote it: the method, the URL and every header as received (names and
 * values, in order). Two requests with the same key are the same request to every handler.
 */
export function exactRequestKey(req: Request): string {
  return `${req.method} ${req.originalUrl}\n${req.rawHeaders.join("\n")}`;
}
