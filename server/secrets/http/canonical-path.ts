// The one form of a request path that the secrets service authorizes and acts on.
//
// The real service reads the path as Go's net/http gives it: percent-decoded exactly once (so
// `adm%69n` is `admin` and `%2F` is a segment separator), answers a path that is not clean (`//`,
// `.` or `..` segments) with 301 to its cleaned form (Go's ServeMux), strips `/v1/`, and for a list
// adds a trailing `/` (http/logical.go, buildLogicalRequestNoAuth). Policies are then checked on
// that string and the engines route on the same string. Doing the same here, once and before the
// policy check, makes "what was authorized" and "what the handler acts on" one value.
import { posix } from "node:path";

export type CanonicalPath =
  /** `path`: relative to /v1, without a leading `/`, with the list's trailing `/` (what policies see). */
  | { kind: "path"; path: string; segments: string[] }
  /** The path is not clean: answer 301 with this location (a path, the query left to the caller). */
  | { kind: "redirect"; location: string }
  | { kind: "invalid"; message: string };

/**
 * Canonicalizes the raw (still percent-encoded) path of a request under `base` (e.g. `/v1`).
 * `segments` is what operations are matched against: the path split at `/`, without the trailing
 * empty segment a list's `/` makes.
 */
export function canonicalPath(rawPath: string, base: string, list: boolean): CanonicalPath {
  const decoded = percentDecode(rawPath);
  if (typeof decoded !== "string") return { kind: "invalid", message: decoded.error };
  const clean = cleanPath(decoded);
  if (clean !== decoded) return { kind: "redirect", location: encodePath(clean) };
  const prefix = `${base}/`;
  if (!decoded.startsWith(prefix)) return { kind: "path", path: "", segments: [] };
  let path = decoded.slice(prefix.length);
  if (list && !path.endsWith("/")) path += "/";
  const routed = list ? path.slice(0, -1) : path;
  return { kind: "path", path, segments: routed === "" ? [] : routed.split("/") };
}

/** Go's url.PathUnescape: every `%XX` decoded once; a bad escape or bytes that are not UTF-8 refused. */
export function percentDecode(raw: string): string | { error: string } {
  if (!raw.includes("%")) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return { error: `invalid URL escape ${JSON.stringify(raw.slice(i, i + 3))}` };
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      // Request targets are ASCII on the wire; anything else is kept as its UTF-8 bytes.
      for (const byte of Buffer.from(raw[i]!)) bytes.push(byte);
    }
  }
  const buffer = Buffer.from(bytes);
  const text = buffer.toString();
  if (!Buffer.from(text).equals(buffer)) return { error: "invalid URL escape: the decoded path is not UTF-8" };
  return text;
}

/** Go's ServeMux cleanPath: path.Clean of the rooted path (no `//`, `.`, `..`), keeping a trailing slash. */
export function cleanPath(path: string): string {
  if (path.startsWith("/") && !UNCLEAN.test(path)) return path; // the common case, already clean
  const clean = posix.resolve("/", path);
  return path.endsWith("/") && clean !== "/" ? `${clean}/` : clean;
}

/** A path of segments that encodeURIComponent leaves as they are, and `/`. */
const UNENCODED = /^[A-Za-z0-9\-_.!~*'()/]*$/;

/** What path.Clean changes in a rooted path: `//`, and `.` or `..` segments. */
const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)/;

/** The path as it goes on the wire again: each segment percent-encoded, `/` kept. */
export function encodePath(path: string): string {
  if (UNENCODED.test(path)) return path; // the common case: nothing in it that encodeURIComponent changes
  return path
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
}
