// The discovery-token engine's access configuration: the backend's address, scheme, management
// token and TLS material, checked before anything is stored. Pure functions.
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { BodyRead } from "../../wire.ts";

/** The body of a configuration write (after the description's schema check). */
export type AccessInput = BodyRead<"DiscoveryTokenAccessConfig">;

/** What is stored: the settings only, each one there (the backend's version is asked for when it is needed). */
export type AccessConfig = Required<AccessInput>;

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Whether `host:port` is well formed (a host name, IPv4 address or [IPv6] address; port 1-65535). */
export function isHostPort(address: string): boolean {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(address);
  if (!match) return false;
  const [, host, port] = match;
  if (Number(port) < 1 || Number(port) > 65535) return false;
  if (host!.startsWith("[")) return isIpv6(host!.slice(1, -1));
  return IPV4.test(host!) || (HOST_NAME.test(host!) && !/^[\d.]+$/.test(host!));
}

function isIpv6(text: string): boolean {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || (text.match(/::/g) ?? []).length > 1) return false;
  try {
    return new URL(`http://[${text}]/`).hostname !== "";
  } catch {
    return false;
  }
}

/** The settings checked: the ones to use, or every problem found. The token never appears in a problem. */
export function checkAccess(input: AccessInput): { value: AccessConfig } | { problems: string[] } {
  const problems: string[] = [];
  const scheme = input.scheme ?? "http";
  const address = input.address ?? "";
  if (address === "") problems.push("address is required: the backend's host:port");
  else if (!isHostPort(address)) problems.push(`address must be host:port (e.g. 127.0.0.1:8500), not ${JSON.stringify(address)}`);
  if (!input.token) problems.push("token is required: a management token of the backend");

  const caCert = input.ca_cert ?? "";
  const clientCert = input.client_cert ?? "";
  const clientKey = input.client_key ?? "";
  if (scheme === "http" && (caCert || clientCert || clientKey)) problems.push("ca_cert, client_cert and client_key need scheme https");
  if (Boolean(clientCert) !== Boolean(clientKey)) problems.push("client_cert and client_key must be given together");
  if (caCert) {
    const certificates = pemBlocks(caCert, "CERTIFICATE");
    if (certificates.length === 0) problems.push("ca_cert must hold one or more PEM certificates");
    for (const [i, block] of certificates.entries()) {
      const problem = certificateProblem(block);
      if (problem) problems.push(`ca_cert (certificate ${i + 1}): ${problem}`);
    }
  }
  if (clientCert && clientKey) {
    const problem = clientPairProblem(clientCert, clientKey);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) return { problems };
  return { value: { address, scheme, token: input.token, ca_cert: caCert, client_cert: clientCert, client_key: clientKey } };
}

/**
 * The PEM blocks of a label, each from its BEGIN line to the first END line after it. Found with
 * indexOf: a lazy `[\s\S]*?` scanned the rest of the text again from every BEGIN line that has no
 * END after it (a MiB of BEGIN lines took seconds).
 */
function pemBlocks(text: string, label: string): string[] {
  const begin = `-----BEGIN ${label}-----`;
  const end = `-----END ${label}-----`;
  const blocks: string[] = [];
  for (let at = text.indexOf(begin); at !== -1; ) {
    const close = text.indexOf(end, at + begin.length);
    if (close === -1) break;
    blocks.push(text.slice(at, close + end.length));
    at = text.indexOf(begin, close + end.length);
  }
  return blocks;
}

function certificateProblem(pem: string): string | undefined {
  try {
    new X509Certificate(pem);
    return undefined;
  } catch {
    return "not a parsable x509 PEM certificate";
  }
}

function clientPairProblem(certPem: string, keyPem: string): string | undefined {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certPem);
  } catch {
    return "client_cert must be a parsable x509 PEM certificate";
  }
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    // The key's text is never repeated in the message.
    return "client_key must be a parsable PEM private key";
  }
  return certificate.checkPrivateKey(key) ? undefined : "client_key is not the private key of client_cert";
}
