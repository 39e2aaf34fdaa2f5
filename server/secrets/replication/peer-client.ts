// HTTP(S) calls from one cluster to another: JSON in and out, a time limit, abortable, and for
// `https` addresses the CA certificates given by `ca_file`/`ca_path` (Node's bundled roots when none).
import { readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { InvalidRequestError } from "../errors.ts";
import { follows } from "./internal-protocol.ts";

export interface PeerResponse {
  status: number;
  body: unknown;
}

export interface PeerRequest {
  url: string;
  method?: "GET" | "POST";
  body?: unknown;
  bearer?: string;
  /** PEM CA certificates for https; undefined: the default roots. */
  ca?: string[];
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A call that got no HTTP answer: refused, reset, timed out, TLS failed, aborted. */
export class PeerUnreachableError extends Error {
  override name = "PeerUnreachableError";
}

export function peerRequest({ url, method = "POST", body, bearer, ca, timeoutMs, signal }: PeerRequest): Promise<PeerResponse> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(new PeerUnreachableError(`${JSON.stringify(url)} is not a URL`));
      return;
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      reject(new PeerUnreachableError(`${url}: only http and https addresses are supported`));
      return;
    }
    if (signal?.aborted) {
      reject(new PeerUnreachableError("aborted"));
      return;
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { Accept: "application/json" };
    if (payload) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = String(payload.length);
    }
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    const options = { method, headers, timeout: timeoutMs, ...(target.protocol === "https:" && ca ? { ca } : {}) };
    const request = (target.protocol === "https:" ? https : http).request(target, options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => reject(new PeerUnreachableError(error.message)));
      response.on("end", () => {
        signal?.removeEventListener("abort", onAbort);
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown;
        try {
          parsed = text === "" ? undefined : JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: response.statusCode ?? 0, body: parsed });
      });
    });
    const onAbort = () => request.destroy(new PeerUnreachableError("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("timeout", () => request.destroy(new PeerUnreachableError(`no answer within ${timeoutMs} ms`)));
    request.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(error instanceof PeerUnreachableError ? error : new PeerUnreachableError(error.message));
    });
    request.end(payload);
  });
}

/** The `{"errors": [...]}` messages of an answer, joined, or its status. */
export function peerError(response: PeerResponse): string {
  const { body } = response;
  return follows("Errors", body) && body.errors.length > 0 ? body.errors.join("; ") : `status ${response.status}`;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The CA certificates named by `ca_file` (one PEM file) and `ca_path` (a directory of PEM files);
 * undefined when both are empty (the system roots are used). Unreadable or certificate-less input is 400.
 */
export function loadCaCertificates(caFile: string | undefined, caPath: string | undefined): string[] | undefined {
  const certificates: string[] = [];
  if (caFile) {
    const text = readText(caFile, "ca_file");
    const found = text.match(PEM_CERTIFICATE) ?? [];
    if (found.length === 0) throw new InvalidRequestError(`ca_file ${JSON.stringify(caFile)} holds no PEM certificate`);
    certificates.push(...found);
  }
  if (caPath) {
    let names: string[];
    try {
      names = readdirSync(caPath).sort();
    } catch (error) {
      throw new InvalidRequestError(`error reading ca_path ${JSON.stringify(caPath)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    for (const name of names) {
      const full = path.join(caPath, name);
      if (!statSync(full).isFile()) continue;
      certificates.push(...(readText(full, "ca_path").match(PEM_CERTIFICATE) ?? []));
    }
    if (certificates.length === 0) throw new InvalidRequestError(`ca_path ${JSON.stringify(caPath)} holds no PEM certificate`);
  }
  return caFile || caPath ? certificates : undefined;
}

function readText(file: string, parameter: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new InvalidRequestError(`error reading ${parameter} ${JSON.stringify(file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
