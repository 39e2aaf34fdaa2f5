// The conformance shim changes nothing but the token header's name: checked on request heads, and
// end to end on the bytes a server receives (LIST and a body included).
import { createServer as createTcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { rewriteHead, startTokenHeaderShim } from "./token-header-shim.ts";

describe("rewriteHead", () => {
  it("renames X-Vault-Token in any case, keeps every other line, and reads the body's length", () => {
    const head = "PUT /v1/sys/leases/renew HTTP/1.1\r\nHost: x\r\nx-vault-token: s.abc\r\nX-Vault-Token-Other: keep\r\nContent-Length: 12";
    expect(rewriteHead(head)).toEqual({
      head: "PUT /v1/sys/leases/renew HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: s.abc\r\nX-Vault-Token-Other: keep\r\nContent-Length: 12",
      bodyLength: 12,
      renamed: true,
    });
    expect(rewriteHead("LIST /v1/aws/roles/ HTTP/1.1\r\nHost: x")).toEqual({ head: "LIST /v1/aws/roles/ HTTP/1.1\r\nHost: x", bodyLength: 0, renamed: false });
    expect(rewriteHead("POST / HTTP/1.1\r\nTransfer-Encoding: chunked").bodyLength).toBe(-1);
  });
});

describe("startTokenHeaderShim", () => {
  it("passes two pipelined requests on, byte for byte but for the header name", async () => {
    const received: Buffer[] = [];
    const upstream = createTcpServer((socket) => socket.on("data", (chunk: Buffer) => received.push(chunk)));
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const shim = await startTokenHeaderShim(new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`));
    const body = '{"x-vault-token: in the body":1}';
    const sent =
      `POST /v1/a HTTP/1.1\r\nX-Vault-Token: t1\r\nContent-Length: ${body.length}\r\n\r\n${body}` + "LIST /v1/b/ HTTP/1.1\r\nX-Vault-Token: t2\r\n\r\n";
    const { connect } = await import("node:net");
    const client = connect(Number(new URL(shim.url).port), "127.0.0.1");
    await new Promise<void>((resolve) => client.on("connect", resolve));
    for (const part of [sent.slice(0, 20), sent.slice(20, 70), sent.slice(70)]) {
      client.write(part);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const expected = sent.replaceAll("X-Vault-Token: t", "X-Secrets-Token: t");
    for (let i = 0; i < 100 && Buffer.concat(received).length < expected.length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(Buffer.concat(received).toString("latin1")).toBe(expected);
    expect(shim.renamed()).toBe(2);
    client.destroy();
    await shim.close();
    await new Promise((resolve) => upstream.close(resolve));
  });
});
