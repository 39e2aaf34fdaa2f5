// Where the engine's root credentials come from, highest first (the provider SDK's credential chain
// the real engine builds):
//   1. static keys of config/root (both access_key and secret_key; one without the other is an error);
//   2. the environment: AWS_ACCESS_KEY_ID (or AWS_ACCESS_KEY), AWS_SECRET_ACCESS_KEY (or
//      AWS_SECRET_KEY), AWS_SESSION_TOKEN;
//   3. the shared credentials file: AWS_SHARED_CREDENTIALS_FILE, else $HOME/.aws/credentials; profile
//      AWS_PROFILE, else `default`;
//   4. the role assigned to the machine or container (asked of the provider by the caller).
// And the region: config/root's, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1.
// Pure: the environment, the home directory and file reading are given.
import path from "node:path";

export interface CloudCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type CredentialSource = "static" | "environment" | "shared-credentials-file" | "assigned-role";

export interface ChainEnvironment {
  env: Record<string, string | undefined>;
  /** The home directory ($HOME), for the default shared credentials file. */
  homeDir: string | undefined;
  /** The file's text; undefined when it does not exist or cannot be read. */
  readFile(file: string): string | undefined;
}

export interface ResolvedCredentials {
  source: CredentialSource;
  credentials: CloudCredentials;
  /** Where they came from, without secrets (e.g. the file and profile). */
  detail: string;
}

export type ChainResult =
  | ResolvedCredentials
  /** Static keys half-configured: an error, the chain stops. */
  | { error: string }
  /** Nothing found in the first three sources: ask for the assigned role; why each was skipped. */
  | { next: string[] };

export const DEFAULT_REGION = "us-east-1";
export const NO_CREDENTIALS = "NoCredentialProviders: no valid providers in chain";

/** The first three sources of the chain. */
export function localCredentials(config: { access_key: string; secret_key: string } | undefined, chain: ChainEnvironment): ChainResult {
  const accessKey = config?.access_key ?? "";
  const secretKey = config?.secret_key ?? "";
  if (accessKey !== "" && secretKey !== "") {
    return { source: "static", credentials: { accessKeyId: accessKey, secretAccessKey: secretKey }, detail: "config/root" };
  }
  if (accessKey !== "" || secretKey !== "") {
    return { error: "static cloud client credentials haven't been properly configured (the access key or secret key were provided but not both)" };
  }
  const skipped: string[] = [];
  const { env } = chain;
  const envKey = env.AWS_ACCESS_KEY_ID || env.AWS_ACCESS_KEY || "";
  const envSecret = env.AWS_SECRET_ACCESS_KEY || env.AWS_SECRET_KEY || "";
  if (envKey !== "" && envSecret !== "") {
    return {
      source: "environment",
      credentials: { accessKeyId: envKey, secretAccessKey: envSecret, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) },
      detail: "environment",
    };
  }
  skipped.push(envKey === "" ? "EnvAccessKeyNotFound: AWS_ACCESS_KEY_ID or AWS_ACCESS_KEY not found in environment" : "EnvSecretNotFound: AWS_SECRET_ACCESS_KEY or AWS_SECRET_KEY not found in environment");

  const file = env.AWS_SHARED_CREDENTIALS_FILE || (chain.homeDir ? path.join(chain.homeDir, ".aws", "credentials") : "");
  const profile = env.AWS_PROFILE || "default";
  const text = file === "" ? undefined : chain.readFile(file);
  if (text === undefined) {
    skipped.push(`SharedCredsLoad: failed to load shared credentials file ${file || "(no home directory)"}`);
    return { next: skipped };
  }
  const section = parseSharedCredentials(text)[profile];
  if (!section) {
    skipped.push(`SharedCredsLoad: failed to get profile ${profile} in ${file}`);
    return { next: skipped };
  }
  const fileKey = section.aws_access_key_id ?? "";
  const fileSecret = section.aws_secret_access_key ?? "";
  if (fileKey === "") skipped.push(`SharedCredsAccessKey: shared credentials ${profile} in ${file} did not contain aws_access_key_id`);
  else if (fileSecret === "") skipped.push(`SharedCredsSecret: shared credentials ${profile} in ${file} did not contain aws_secret_access_key`);
  else {
    return {
      source: "shared-credentials-file",
      credentials: { accessKeyId: fileKey, secretAccessKey: fileSecret, ...(section.aws_session_token ? { sessionToken: section.aws_session_token } : {}) },
      detail: `${file} [${profile}]`,
    };
  }
  return { next: skipped };
}

/** The region of the provider calls. */
export function regionOf(configured: string | undefined, env: Record<string, string | undefined>): string {
  return configured || env.AWS_REGION || env.AWS_DEFAULT_REGION || DEFAULT_REGION;
}

/**
 * A shared credentials file (INI): `[profile]` sections of `key = value` lines; `#` and `;` start
 * comments. Keys are read in lower case.
 */
export function parseSharedCredentials(text: string): Record<string, Record<string, string>> {
  const profiles: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (section) {
      current = profiles[section[1]!] ??= {};
      continue;
    }
    const equals = line.indexOf("=");
    if (equals <= 0 || !current) continue;
    current[line.slice(0, equals).trim().toLowerCase()] = line.slice(equals + 1).trim();
  }
  return profiles;
}
