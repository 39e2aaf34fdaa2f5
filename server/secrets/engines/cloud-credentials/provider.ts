// The cloud provider behind the cloud credentials engine: the calls of its identity service (IAM)
// and security token service (STS) that the engine makes, as a plain TypeScript interface. The
// reference server uses the in-memory simulation (simulation.ts); a client of a real provider could
// implement the same interface.
import type { CloudCredentials } from "./credential-chain.ts";

export type { CloudCredentials } from "./credential-chain.ts";

/** How a call is made: with which credentials, in which region, at which endpoint. */
export interface ProviderClient {
  credentials: CloudCredentials;
  region: string;
  /** A custom endpoint of the service called; empty for the provider's default one. */
  endpoint: string;
  /** Retries of recoverable errors; -1 for the SDK's default. */
  maxRetries: number;
}

/** A refusal of the provider, with its error code (`LimitExceeded`, `NoSuchEntity`...). */
export class CloudProviderError extends Error {
  override name = "CloudProviderError";
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }

  /** `<code>: <message>`, the way the provider SDK prints its errors. */
  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

export interface IamUser {
  userName: string;
  userId: string;
  arn: string;
  path: string;
  permissionsBoundary?: string;
}

export interface AccessKey {
  userName: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface StsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export interface AssumeRoleInput {
  roleArn: string;
  roleSessionName: string;
  durationSeconds: number;
  /** An inline session policy (JSON). */
  policy?: string;
  /** Managed session policies. */
  policyArns?: string[];
}

export interface FederationTokenInput {
  name: string;
  durationSeconds: number;
  policy?: string;
  policyArns?: string[];
}

export interface CloudProvider {
  /** Credentials of the role assigned to the machine or container the service runs on, if any. */
  assignedRoleCredentials(): Promise<CloudCredentials | undefined>;

  // The identity service (IAM). `userName` left out means the caller's own user.
  getUser(client: ProviderClient, userName?: string): Promise<IamUser>;
  createUser(client: ProviderClient, input: { userName: string; path: string; permissionsBoundary?: string }): Promise<IamUser>;
  deleteUser(client: ProviderClient, userName: string): Promise<void>;
  attachUserPolicy(client: ProviderClient, userName: string, policyArn: string): Promise<void>;
  detachUserPolicy(client: ProviderClient, userName: string, policyArn: string): Promise<void>;
  listAttachedUserPolicies(client: ProviderClient, userName: string): Promise<string[]>;
  putUserPolicy(client: ProviderClient, userName: string, policyName: string, document: string): Promise<void>;
  deleteUserPolicy(client: ProviderClient, userName: string, policyName: string): Promise<void>;
  listUserPolicies(client: ProviderClient, userName: string): Promise<string[]>;
  addUserToGroup(client: ProviderClient, userName: string, groupName: string): Promise<void>;
  removeUserFromGroup(client: ProviderClient, userName: string, groupName: string): Promise<void>;
  listGroupsForUser(client: ProviderClient, userName: string): Promise<string[]>;
  tagUser(client: ProviderClient, userName: string, tags: Record<string, string>): Promise<void>;
  createAccessKey(client: ProviderClient, userName?: string): Promise<AccessKey>;
  deleteAccessKey(client: ProviderClient, accessKeyId: string, userName?: string): Promise<void>;
  listAccessKeys(client: ProviderClient, userName?: string): Promise<string[]>;
  listAttachedGroupPolicies(client: ProviderClient, groupName: string): Promise<string[]>;
  listGroupPolicies(client: ProviderClient, groupName: string): Promise<string[]>;
  getGroupPolicy(client: ProviderClient, groupName: string, policyName: string): Promise<string>;

  // The security token service (STS).
  assumeRole(client: ProviderClient, input: AssumeRoleInput): Promise<{ credentials: StsCredentials; assumedRoleUser: { arn: string; assumedRoleId: string } }>;
  getFederationToken(client: ProviderClient, input: FederationTokenInput): Promise<{ credentials: StsCredentials; federatedUser: { arn: string; federatedUserId: string } }>;
}
