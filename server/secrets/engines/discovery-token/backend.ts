// The engine's HTTP client for the discovery backend (the service-mesh server): its version, and
// ACL tokens from the current token API or the legacy one. The management token goes in
// `X-Mesh-Token` and is never part of an error message.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AccessConfig } from "./access.ts";

/**
 * The backend could not be reached (`status` undefined; `code` the socket error's code, when there
 * is one), answered with an error status (`body` its text), or answered 2xx with something unusable.
 */
export class BackendError extends Error {
  override name = "BackendError";
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface TokenRequest {
  Description: string;
  Policies: { Name: string }[];
  Roles: { Name: string }[];
  Local: boolean;
  Namespace?: string;
  Partition?: string;
}

export interface IssuedToken {
  AccessorID: string;
  SecretID: string;
  Local?: boolean;
  Namespace?: string;
  Partition?: string;
}

export interface LegacyTokenRequest {
  Name: string;
  Type: "client" | "management";
  Rules: string;
}

const TIMEOUT_MS = 10_000;

export class DiscoveryBackend {
  constructor(
    private readonly settings: AccessConfig,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {}

  /** The backend's `host:port`, for messages. */
  get address(): string {
    return this.settings.address;
  }

  /** The backend's base URL, for messages. */
  get origin(): string {
    return `${this.settings.scheme}://${this.settings.address}`;
  }

  /** The release the backend reports (`GET /v1/agent/self`, `Config.Version`). */
  async version(): Promise<string> {
    const self = (await this.call("GET", "/v1/agent/self")) as { Config?: { Version?: unknown } } | null;
    const version = self?.Config?.Version;
    if (typeof version !== "string" || version === "") throw new BackendError("the answer has no Config.Version");
    return version;
  }

  /** A token from the token API (backend 1.4 and later). */
  async createToken(body: TokenRequest): Promise<IssuedToken> {
    const token = (await this.call("PUT", "/v1/acl/token", body)) as IssuedToken | null;
    if (!token || typeof token.SecretID !== "string" || typeof token.AccessorID !== "string") {
      throw new BackendError("the answer has no SecretID and AccessorID");
    }
    return token;
  }

  /** A token from the legacy API (backends before 1.11): its secret. */
  async createLegacyToken(body: LegacyTokenRequest): Promise<string> {
    const answer = (await this.call("PUT", "/v1/acl/create", body)) as { ID?: unknown } | null;
    if (typeof answer?.ID !== "string") throw new BackendError("the answer has no ID");
    return answer.ID;
  }

  /** Deletes a token of the token API by its accessor; one that is already gone counts as deleted. */
  async deleteToken(accessorId: string): Promise<void> {
    try {
      await this.call("DELETE", `/v1/acl/token/${encodeURIComponent(accessorId)}`);
    } catch (error) {
      if (!(error instanceof BackendError && error.status === 404)) throw error;
    }
  }

  /** Deletes a legacy token by its secret (the legacy API succeeds whether or not it exists). */
  async destroyLegacyToken(secretId: string): Promise<void> {
    await this.call("PUT", `/v1/acl/destroy/${encodeURIComponent(secretId)}`);
  }

  private call(method: "GET" | "PUT" | "DELETE", path: string, body?: unknown): Promise<unknown> {
    const { scheme, address, token, ca_cert, client_cert, client_key } = this.settings;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const url = new URL(`${scheme}://${address}${path}`);
    const headers: Record<string, string> = { "X-Mesh-Token": token, Accept: "application/json" };
    if (payload !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    const tls = scheme === "https" ? { ...(ca_cert ? { ca: ca_cert } : {}), ...(client_cert ? { cert: client_cert, key: client_key } : {}) } : {};
    const send = scheme === "https" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, timeout: this.timeoutMs, agent: false, ...tls }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", (error) => reject(new BackendError(error.message)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(new BackendError(`${status} ${text.trim() || res.statusMessage || "error"}`.slice(0, 500), status, text.slice(0, 500)));
            return;
          }
          try {
            resolve(text === "" ? null : JSON.parse(text));
          } catch {
            reject(new BackendError(`${status} an answer that is not JSON`, status));
          }
        });
      });
      req.on("timeout", () => req.destroy(new Error(`no answer within ${this.timeoutMs / 1000}s`)));
      req.on("error", (error: NodeJS.ErrnoException) => reject(new BackendError(error.message, undefined, undefined, error.code)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
}
