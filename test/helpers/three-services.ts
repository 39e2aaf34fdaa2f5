// The three services as the limit and disk-fault tests drive them over plain HTTP: where each is,
// a write and a read of the thing it wrote, and how its error envelope looks.
import { TOKENS } from "./org-platform.ts";

export type ServiceName = "org-platform" | "secrets" | "mesh";

export interface ServiceUnderTest {
  name: ServiceName;
  /** The variable of its port and of its data directory. */
  portVariable: string;
  dataDirVariable: string;
  /** Its base URL in what the server printed at start. */
  baseUrl(printed: string): string;
  /** A token that may write (from what was printed: the secrets root token is made at start). */
  token(printed: string): string;
  /** Headers that carry `token`. */
  auth(token: string): Record<string, string>;
  /** A write of item `name`: method, path, body and content type. */
  write(name: string): { method: string; path: string; body: string; contentType: string };
  /** Where item `name` is read back (200 when it exists, 404 when not). */
  readPath(name: string): string;
  /** A read that needs no data: answered with 200 by a healthy server. */
  healthPath: string;
  /** The content type of its errors. */
  errorType: RegExp;
  /** The messages of an error body. */
  messages(body: string): string[];
}

const orgPlatform: ServiceUnderTest = {
  name: "org-platform",
  portVariable: "ORG_PLATFORM_PORT",
  dataDirVariable: "ORG_PLATFORM_DATA_DIR",
  baseUrl: (printed) => /(http:\/\/\S+\/api\/v2)/.exec(printed)![1]!,
  token: () => TOKENS.alice,
  auth: (token) => ({ Authorization: `Bearer ${token}` }),
  write: (name) => ({
    method: "POST",
    path: "/organizations/acme/teams",
    body: JSON.stringify({ data: { type: "teams", attributes: { name, visibility: "organization" } } }),
    contentType: "application/vnd.api+json",
  }),
  // Teams are read by id; by name, the list's filter finds them (an empty list when absent).
  readPath: (name) => `/organizations/acme/teams?q=${encodeURIComponent(name)}`,
  healthPath: "/organizations/acme",
  errorType: /^application\/vnd\.api\+json/,
  messages: (body) => (JSON.parse(body) as { errors: Array<{ detail?: string; title: string }> }).errors.map((e) => e.detail ?? e.title),
};

const secrets: ServiceUnderTest = {
  name: "secrets",
  portVariable: "SECRETS_PORT",
  dataDirVariable: "SECRETS_DATA_DIR",
  baseUrl: (printed) => /secrets \(secrets service\)\s+(http:\/\/\S+\/v1)/.exec(printed)![1]!,
  token: (printed) => /root token \(X-Secrets-Token\): (\S+)/.exec(printed)![1]!,
  auth: (token) => ({ "X-Secrets-Token": token }),
  write: (name) => ({
    method: "POST",
    path: `/aws/roles/${name}`,
    body: JSON.stringify({ credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }),
    contentType: "application/json",
  }),
  readPath: (name) => `/aws/roles/${name}`,
  healthPath: "/sys/replication/dr/status",
  errorType: /^application\/json/,
  messages: (body) => (JSON.parse(body) as { errors: string[] }).errors,
};

const mesh: ServiceUnderTest = {
  name: "mesh",
  portVariable: "MESH_PORT",
  dataDirVariable: "MESH_DATA_DIR",
  baseUrl: (printed) => /mesh \(service-mesh discovery chain\)\s+(http:\/\/\S+\/v1)/.exec(printed)![1]!,
  token: () => MESH_MANAGEMENT_TOKEN,
  auth: (token) => ({ "X-Mesh-Token": token }),
  write: (name) => ({ method: "PUT", path: "/config", body: JSON.stringify({ Kind: "service-defaults", Name: name, Protocol: "http" }), contentType: "application/json" }),
  readPath: (name) => `/config/service-defaults/${name}`,
  healthPath: "/agent/self",
  errorType: /^text\/plain/,
  messages: (body) => [body],
};

/** The mesh's management token in these tests (ACLs on, so that a missing token is refused). */
export const MESH_MANAGEMENT_TOKEN = "limits-management-token";

export const SERVICES: readonly ServiceUnderTest[] = [orgPlatform, secrets, mesh];

/** Whether item `name` reads back: the mesh and secrets answer 404 when absent, the platform's filtered list is empty. */
export async function exists(service: ServiceUnderTest, base: string, token: string, name: string): Promise<boolean> {
  const response = await fetch(base + service.readPath(name), { headers: service.auth(token) });
  const text = await response.text();
  if (service.name === "org-platform") {
    if (response.status !== 200) throw new Error(`read ${response.status}: ${text}`);
    return (JSON.parse(text) as { data: Array<{ attributes: { name: string } }> }).data.some((team) => team.attributes.name === name);
  }
  if (response.status !== 200 && response.status !== 404) throw new Error(`read ${response.status}: ${text}`);
  return response.status === 200;
}

export async function writeItem(service: ServiceUnderTest, base: string, token: string, name: string): Promise<{ status: number; headers: Headers; body: string }> {
  const { method, path, body, contentType } = service.write(name);
  const response = await fetch(base + path, { method, headers: { ...service.auth(token), "Content-Type": contentType }, body });
  return { status: response.status, headers: response.headers, body: await response.text() };
}
