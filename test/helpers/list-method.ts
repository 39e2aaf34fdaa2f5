// Feeds a text to a fresh LIST request-line rewriter, cut into packets at the given offsets, and
// gives back what it passed on.
import { ListRequestRewriter } from "../../server/secrets/http/list-method.ts";

export function rewriteAll(input: string, cuts: number[] = []): string {
  const rewriter = new ListRequestRewriter();
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts, input.length]) {
    out.push(...rewriter.push(Buffer.from(input.slice(at, cut), "latin1")));
    at = cut;
  }
  return Buffer.concat(out).toString("latin1");
}
