// An in-memory simulation of the cloud provider's identity service (IAM) and security token service
// (STS), enforcing the provider's rules, so that the reference server issues credentials that behave
// like real ones:
// - every call is authenticated: long-term keys (`AKIA` + 16) of an IAM user, or temporary keys
//   (`ASIA` + 16) with their session token, not expired; a custom endpoint must be one it answers at;
// - IAM users: names of 1-64 characters, paths, permissions boundaries and attached managed policies
//   that exist, at most 10 managed policies, 10 groups, 50 tags and 2 access keys per user, inline
//   policies that are valid policy documents of at most 2048 characters in all, groups that exist,
//   no deleting a user that still has keys, policies or groups;
// - AssumeRole: only roles of the account, 900 seconds to the role's maximum session duration (1 hour
//   when the caller is itself a role session), session names of 2-64 characters; GetFederationToken:
//   only with an IAM user's long-term keys, 900 to 129600 seconds, names of 2-32 characters; session
//   policies of at most 2048 characters and 10 managed policies that exist.
// Secrets are never part of an error message or of the call log.
import { randomBytes, randomInt } from "node:crypto";
import { arnResourceName, parseArn } from "./arns.ts";
import { trimEndOf } from "../../../shared/trim.ts";
import { DEFAULT_CLOUD_WORLD, PROVIDER_MANAGED_POLICIES, type CloudWorld } from "./cloud-world.ts";
import {
  CloudProviderError,
  type AccessKey,
  type AssumeRoleInput,
  type CloudCredentials,
  type CloudProvider,
  type FederationTokenInput,
  type IamUser,
  type ProviderClient,
  type StsCredentials,
} from "./provider.ts";

export const LIMITS = {
  accessKeysPerUser: 2,
  managedPoliciesPerUser: 10,
  groupsPerUser: 10,
  tagsPerUser: 50,
  inlinePolicySizePerUser: 2048,
  sessionPolicySize: 2048,
  sessionPolicyArns: 10,
  minStsDuration: 900,
  maxRoleSessionDuration: 43200,
  roleChainingDuration: 3600,
  maxFederationDuration: 129600,
  userNameLength: 64,
  sessionNameLength: 64,
  federatedNameLength: 32,
} as const;

/** How long the credentials of the assigned role last before they are renewed. */
const ASSIGNED_ROLE_DURATION = 6 * 3600;

interface SimUser {
  name: string;
  path: string;
  arn: string;
  id: string;
  boundary?: string;
  tags: Map<string, string>;
  groups: Set<string>;
  inline: Map<string, string>;
  attached: Set<string>;
  keys: Map<string, string>;
}

interface SimGroup {
  name: string;
  attached: string[];
  inline: Map<string, string>;
}

interface SimRole {
  name: string;
  arn: string;
  id: string;
  maxSessionDuration: number;
}

interface SimSession {
  kind: "assumed-role" | "federated-user";
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: number;
  arn: string;
  /** For a federated user: the IAM user whose keys made it. */
  parentUser?: string;
}

type Principal = { kind: "user"; user: SimUser } | { kind: "session"; session: SimSession };

/** One call as the simulation saw it (no secrets): for tests and for the curious. */
export interface ProviderCall {
  service: "iam" | "sts";
  action: string;
  /** The caller's ARN, or the access key id when the call was refused before it was known. */
  caller: string;
  accessKeyId: string;
  region: string;
  endpoint: string;
  error?: string;
}

export interface SimulationOptions {
  world?: CloudWorld;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
}

/** A user as a test sees it. */
export interface SimUserView {
  name: string;
  path: string;
  arn: string;
  permissionsBoundary?: string;
  tags: Record<string, string>;
  groups: string[];
  inlinePolicies: Record<string, string>;
  attachedPolicies: string[];
  accessKeys: string[];
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const SECRET_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function randomFrom(alphabet: string, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[randomInt(alphabet.length)];
  return text;
}

const fail = (code: string, message: string, status = 400): never => {
  throw new CloudProviderError(code, message, status);
};

const lengthError = (value: string, field: string, bound: "greater" | "less", limit: number) =>
  fail(
    "ValidationError",
    `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: Member must have length ${bound} than or equal to ${limit}`,
  );

const valueError = (value: number, field: string, bound: "greater" | "less", limit: number) =>
  fail(
    "ValidationError",
    `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: Member must have value ${bound} than or equal to ${limit}`,
  );

/** Why a JSON text is not an identity (or session) policy document, as the provider says it; undefined when it is one. */
export function policyDocumentProblem(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return "Syntax errors in policy.";
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return "Syntax errors in policy.";
  const policy = doc as Record<string, unknown>;
  const unknown = Object.keys(policy).find((key) => !["Version", "Id", "Statement"].includes(key));
  if (unknown) return `Syntax errors in policy. Unknown field ${unknown}`;
  if (policy.Version !== undefined && policy.Version !== "2012-10-17" && policy.Version !== "2008-10-17") return "The policy failed legacy parsing";
  const statements = Array.isArray(policy.Statement) ? policy.Statement : policy.Statement === undefined ? [] : [policy.Statement];
  if (statements.length === 0) return "Syntax errors in policy.";
  for (const raw of statements) {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "Syntax errors in policy.";
    const statement = raw as Record<string, unknown>;
    if (statement.Principal !== undefined || statement.NotPrincipal !== undefined) return "Policy document should not specify a principal.";
    if (statement.Effect !== "Allow" && statement.Effect !== "Deny") return statement.Effect === undefined ? "Missing required field Effect" : "Syntax errors in policy.";
    if (statement.Action === undefined && statement.NotAction === undefined) return "Missing required field Action";
    if (statement.Resource === undefined && statement.NotResource === undefined) return "Missing required field Resource";
    for (const field of ["Action", "NotAction", "Resource", "NotResource"]) {
      const value = statement[field];
      if (value === undefined) continue;
      const items = Array.isArray(value) ? value : [value];
      if (items.length === 0 || items.some((item) => typeof item !== "string" || item === "")) return "Syntax errors in policy.";
    }
  }
  return undefined;
}

/** Characters that count towards a policy's size (the provider leaves out whitespace). */
function policySize(text: string): number {
  return text.replace(/\s/g, "").length;
}

export class SimulatedCloud implements CloudProvider {
  readonly account: string;
  readonly #now: () => number;
  readonly #users = new Map<string, SimUser>();
  readonly #groups = new Map<string, SimGroup>();
  readonly #roles = new Map<string, SimRole>();
  readonly #policies = new Map<string, string>();
  readonly #sessions = new Map<string, SimSession>();
  readonly #endpoints: Set<string>;
  readonly #assignedRole?: string;
  #assignedSession?: SimSession;
  readonly #calls: ProviderCall[] = [];

  constructor(options: SimulationOptions = {}) {
    const world = options.world ?? DEFAULT_CLOUD_WORLD;
    this.account = world.account_id;
    this.#now = options.now ?? Date.now;
    for (const arn of PROVIDER_MANAGED_POLICIES) this.#policies.set(arn, '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}');
    for (const policy of world.policies) this.#policies.set(`arn:aws:iam::${this.account}:policy${policy.path}${policy.name}`, policy.document);
    for (const group of world.groups) {
      this.#groups.set(group.name, { name: group.name, attached: [...group.policy_arns], inline: new Map(Object.entries(group.policies)) });
    }
    for (const role of world.roles) {
      this.#roles.set(role.name, {
        name: role.name,
        arn: `arn:aws:iam::${this.account}:role${role.path}${role.name}`,
        id: `AROA${randomFrom(BASE32, 17)}`,
        maxSessionDuration: role.max_session_duration,
      });
    }
    for (const user of world.users) {
      const sim = this.#newUser(user.name, user.path);
      for (const key of user.access_keys) sim.keys.set(key.access_key, key.secret_key);
    }
    this.#endpoints = new Set(world.endpoints.map(normalizeEndpoint));
    this.#assignedRole = world.assigned_role;
  }

  // ---- What tests (and curious operators) may look at; not part of the provider interface. ----

  /** The calls made so far, oldest first. */
  get calls(): readonly ProviderCall[] {
    return this.#calls;
  }

  userNames(): string[] {
    return [...this.#users.keys()].sort();
  }

  user(name: string): SimUserView | undefined {
    const user = this.#users.get(name);
    if (!user) return undefined;
    return {
      name: user.name,
      path: user.path,
      arn: user.arn,
      ...(user.boundary ? { permissionsBoundary: user.boundary } : {}),
      tags: Object.fromEntries(user.tags),
      groups: [...user.groups],
      inlinePolicies: Object.fromEntries(user.inline),
      attachedPolicies: [...user.attached],
      accessKeys: [...user.keys.keys()],
    };
  }

  /** Gives a user one more access key out of band (as another administrator would); the same limits apply. */
  addAccessKey(userName: string): AccessKey {
    const user = this.#users.get(userName) ?? fail("NoSuchEntity", `The user with name ${userName} cannot be found.`, 404);
    return this.#createKey(user);
  }

  // ---- The provider interface. ----

  async assignedRoleCredentials(): Promise<CloudCredentials | undefined> {
    if (!this.#assignedRole) return undefined;
    const current = this.#assignedSession;
    if (current && current.expiration - this.#now() > 5 * 60_000) return credentialsOf(current);
    const role = this.#roles.get(this.#assignedRole)!;
    const session = this.#newSession("assumed-role", `arn:aws:sts::${this.account}:assumed-role/${role.name}/i-${randomFrom("0123456789abcdef", 17)}`, ASSIGNED_ROLE_DURATION);
    this.#assignedSession = session;
    return credentialsOf(session);
  }

  async getUser(client: ProviderClient, userName?: string): Promise<IamUser> {
    return this.#call(client, "iam", "GetUser", (principal) => {
      if (userName === undefined) {
        if (principal.kind !== "user") fail("ValidationError", "Must specify userName when calling with non-User credentials");
        return userOf((principal as { user: SimUser }).user);
      }
      return userOf(this.#user(userName));
    });
  }

  async createUser(client: ProviderClient, input: { userName: string; path: string; permissionsBoundary?: string }): Promise<IamUser> {
    return this.#call(client, "iam", "CreateUser", () => {
      const { userName, path, permissionsBoundary } = input;
      if (userName.length > LIMITS.userNameLength) lengthError(userName, "userName", "less", LIMITS.userNameLength);
      if (!/^[\w+=,.@-]+$/.test(userName)) fail("ValidationError", `The specified value for userName is invalid. It must contain only alphanumeric characters and/or the following: +=,.@_-`);
      if (!/^\/([\x21-\x7E]{0,510}\/)?$/.test(path)) fail("ValidationError", "The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.");
      if ([...this.#users.keys()].some((name) => name.toLowerCase() === userName.toLowerCase())) fail("EntityAlreadyExists", `User with name ${userName} already exists.`, 409);
      if (permissionsBoundary !== undefined && !this.#policies.has(permissionsBoundary)) {
        fail("NoSuchEntity", `Policy ${permissionsBoundary} does not exist or is not attachable.`, 404);
      }
      const user = this.#newUser(userName, path);
      if (permissionsBoundary !== undefined) user.boundary = permissionsBoundary;
      return userOf(user);
    });
  }

  async deleteUser(client: ProviderClient, userName: string): Promise<void> {
    return this.#call(client, "iam", "DeleteUser", () => {
      const user = this.#user(userName);
      if (user.keys.size > 0) fail("DeleteConflict", "Cannot delete entity, must delete access keys first.", 409);
      if (user.inline.size > 0) fail("DeleteConflict", "Cannot delete entity, must delete policies first.", 409);
      if (user.attached.size > 0) fail("DeleteConflict", "Cannot delete entity, must detach all policies first.", 409);
      if (user.groups.size > 0) fail("DeleteConflict", "Cannot delete entity, must remove users from group first.", 409);
      this.#users.delete(userName);
    });
  }

  async attachUserPolicy(client: ProviderClient, userName: string, policyArn: string): Promise<void> {
    return this.#call(client, "iam", "AttachUserPolicy", () => {
      // The request's own constraint comes first (AttachUserPolicy: PolicyArn of 20 to 2048 characters).
      if (policyArn.length < 20) lengthError(policyArn, "policyArn", "greater", 20);
      if (policyArn.length > 2048) lengthError(policyArn, "policyArn", "less", 2048);
      const user = this.#user(userName);
      if (!this.#policies.has(policyArn)) fail("NoSuchEntity", `Policy ${policyArn} does not exist or is not attachable.`, 404);
      if (user.attached.has(policyArn)) return;
      if (user.attached.size >= LIMITS.managedPoliciesPerUser) fail("LimitExceeded", `Cannot exceed quota for PoliciesPerUser: ${LIMITS.managedPoliciesPerUser}`, 409);
      user.attached.add(policyArn);
    });
  }

  async detachUserPolicy(client: ProviderClient, userName: string, policyArn: string): Promise<void> {
    return this.#call(client, "iam", "DetachUserPolicy", () => {
      const user = this.#user(userName);
      if (!user.attached.delete(policyArn)) fail("NoSuchEntity", `Policy ${policyArn} was not found.`, 404);
    });
  }

  async listAttachedUserPolicies(client: ProviderClient, userName: string): Promise<string[]> {
    return this.#call(client, "iam", "ListAttachedUserPolicies", () => [...this.#user(userName).attached]);
  }

  async putUserPolicy(client: ProviderClient, userName: string, policyName: string, document: string): Promise<void> {
    return this.#call(client, "iam", "PutUserPolicy", () => {
      const user = this.#user(userName);
      if (!/^[\w+=,.@-]{1,128}$/.test(policyName)) fail("ValidationError", `The specified value for policyName is invalid. It must contain only alphanumeric characters and/or the following: +=,.@_-`);
      const problem = policyDocumentProblem(document);
      if (problem) fail("MalformedPolicyDocument", problem);
      const others = [...user.inline].filter(([name]) => name !== policyName).reduce((sum, [, doc]) => sum + policySize(doc), 0);
      if (others + policySize(document) > LIMITS.inlinePolicySizePerUser) {
        fail("LimitExceeded", `Maximum policy size of ${LIMITS.inlinePolicySizePerUser} bytes exceeded for user ${userName}`, 409);
      }
      user.inline.set(policyName, document);
    });
  }

  async deleteUserPolicy(client: ProviderClient, userName: string, policyName: string): Promise<void> {
    return this.#call(client, "iam", "DeleteUserPolicy", () => {
      if (!this.#user(userName).inline.delete(policyName)) fail("NoSuchEntity", `The user policy with name ${policyName} cannot be found.`, 404);
    });
  }

  async listUserPolicies(client: ProviderClient, userName: string): Promise<string[]> {
    return this.#call(client, "iam", "ListUserPolicies", () => [...this.#user(userName).inline.keys()]);
  }

  async addUserToGroup(client: ProviderClient, userName: string, groupName: string): Promise<void> {
    return this.#call(client, "iam", "AddUserToGroup", () => {
      const group = this.#group(groupName);
      const user = this.#user(userName);
      if (user.groups.has(group.name)) return;
      if (user.groups.size >= LIMITS.groupsPerUser) fail("LimitExceeded", `Cannot exceed quota for GroupsPerUser: ${LIMITS.groupsPerUser}`, 409);
      user.groups.add(group.name);
    });
  }

  async removeUserFromGroup(client: ProviderClient, userName: string, groupName: string): Promise<void> {
    return this.#call(client, "iam", "RemoveUserFromGroup", () => {
      const group = this.#group(groupName);
      if (!this.#user(userName).groups.delete(group.name)) fail("NoSuchEntity", `The user with name ${userName} cannot be found in group ${groupName}.`, 404);
    });
  }

  async listGroupsForUser(client: ProviderClient, userName: string): Promise<string[]> {
    return this.#call(client, "iam", "ListGroupsForUser", () => [...this.#user(userName).groups]);
  }

  async tagUser(client: ProviderClient, userName: string, tags: Record<string, string>): Promise<void> {
    return this.#call(client, "iam", "TagUser", () => {
      const user = this.#user(userName);
      const entries = Object.entries(tags);
      for (const [i, [key, value]] of entries.entries()) {
        if (key.length < 1) lengthError(key, `tags.${i + 1}.member.key`, "greater", 1);
        if (key.length > 128) lengthError(key, `tags.${i + 1}.member.key`, "less", 128);
        if (value.length > 256) lengthError(value, `tags.${i + 1}.member.value`, "less", 256);
        const pattern = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
        if (!pattern.test(key)) fail("ValidationError", `1 validation error detected: Value '${key}' at 'tags.${i + 1}.member.key' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]+`);
        if (!pattern.test(value)) fail("ValidationError", `1 validation error detected: Value '${value}' at 'tags.${i + 1}.member.value' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*`);
        if (key.toLowerCase().startsWith("aws:")) fail("InvalidInput", "User tag keys beginning with 'aws:' are reserved for system use.");
      }
      const merged = new Map(user.tags);
      for (const [key, value] of entries) merged.set(key, value);
      if (merged.size > LIMITS.tagsPerUser) fail("LimitExceeded", `The number of tags has reached the maximum limit of ${LIMITS.tagsPerUser}.`, 409);
      user.tags = merged;
    });
  }

  async createAccessKey(client: ProviderClient, userName?: string): Promise<AccessKey> {
    return this.#call(client, "iam", "CreateAccessKey", (principal) => this.#createKey(this.#targetUser(principal, userName)));
  }

  async deleteAccessKey(client: ProviderClient, accessKeyId: string, userName?: string): Promise<void> {
    return this.#call(client, "iam", "DeleteAccessKey", (principal) => {
      const user = this.#targetUser(principal, userName);
      if (!user.keys.delete(accessKeyId)) fail("NoSuchEntity", `The Access Key with id ${accessKeyId} cannot be found.`, 404);
    });
  }

  async listAccessKeys(client: ProviderClient, userName?: string): Promise<string[]> {
    return this.#call(client, "iam", "ListAccessKeys", (principal) => [...this.#targetUser(principal, userName).keys.keys()]);
  }

  async listAttachedGroupPolicies(client: ProviderClient, groupName: string): Promise<string[]> {
    return this.#call(client, "iam", "ListAttachedGroupPolicies", () => [...this.#group(groupName).attached]);
  }

  async listGroupPolicies(client: ProviderClient, groupName: string): Promise<string[]> {
    return this.#call(client, "iam", "ListGroupPolicies", () => [...this.#group(groupName).inline.keys()]);
  }

  async getGroupPolicy(client: ProviderClient, groupName: string, policyName: string): Promise<string> {
    return this.#call(client, "iam", "GetGroupPolicy", () => {
      const document = this.#group(groupName).inline.get(policyName);
      return document ?? fail("NoSuchEntity", `The group policy with name ${policyName} cannot be found.`, 404);
    });
  }

  async assumeRole(client: ProviderClient, input: AssumeRoleInput) {
    return this.#call(client, "sts", "AssumeRole", (principal, callerArn) => {
      const { roleArn, roleSessionName, durationSeconds } = input;
      if (principal.kind === "session" && principal.session.kind === "federated-user") {
        fail("AccessDenied", `User: ${callerArn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`, 403);
      }
      if (roleSessionName.length < 2) lengthError(roleSessionName, "roleSessionName", "greater", 2);
      if (roleSessionName.length > LIMITS.sessionNameLength) lengthError(roleSessionName, "roleSessionName", "less", LIMITS.sessionNameLength);
      if (!/^[\w+=,.@-]+$/.test(roleSessionName)) {
        fail("ValidationError", `1 validation error detected: Value '${roleSessionName}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`);
      }
      if (durationSeconds < LIMITS.minStsDuration) valueError(durationSeconds, "durationSeconds", "greater", LIMITS.minStsDuration);
      if (durationSeconds > LIMITS.maxRoleSessionDuration) valueError(durationSeconds, "durationSeconds", "less", LIMITS.maxRoleSessionDuration);
      this.#checkSessionPolicies(input.policy, input.policyArns);
      const arn = parseArn(roleArn);
      const role = "error" in arn || arn.service !== "iam" || arn.account !== this.account ? undefined : this.#roles.get(arnResourceName(arn));
      if (!role || role.arn !== roleArn) fail("AccessDenied", `User: ${callerArn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`, 403);
      if (durationSeconds > role!.maxSessionDuration) fail("ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.");
      if (principal.kind === "session" && durationSeconds > LIMITS.roleChainingDuration) {
        fail("ValidationError", "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.");
      }
      const session = this.#newSession("assumed-role", `arn:aws:sts::${this.account}:assumed-role/${role!.name}/${roleSessionName}`, durationSeconds);
      return { credentials: stsCredentialsOf(session), assumedRoleUser: { arn: session.arn, assumedRoleId: `${role!.id}:${roleSessionName}` } };
    });
  }

  async getFederationToken(client: ProviderClient, input: FederationTokenInput) {
    return this.#call(client, "sts", "GetFederationToken", (principal) => {
      const { name, durationSeconds } = input;
      if (principal.kind !== "user") fail("AccessDenied", "Cannot call GetFederationToken with session credentials", 403);
      if (name.length < 2) lengthError(name, "name", "greater", 2);
      if (name.length > LIMITS.federatedNameLength) lengthError(name, "name", "less", LIMITS.federatedNameLength);
      if (!/^[\w+=,.@-]+$/.test(name)) fail("ValidationError", `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`);
      if (durationSeconds < LIMITS.minStsDuration) valueError(durationSeconds, "durationSeconds", "greater", LIMITS.minStsDuration);
      if (durationSeconds > LIMITS.maxFederationDuration) valueError(durationSeconds, "durationSeconds", "less", LIMITS.maxFederationDuration);
      this.#checkSessionPolicies(input.policy, input.policyArns);
      const session = this.#newSession("federated-user", `arn:aws:sts::${this.account}:federated-user/${name}`, durationSeconds);
      session.parentUser = (principal as { user: SimUser }).user.name;
      return { credentials: stsCredentialsOf(session), federatedUser: { arn: session.arn, federatedUserId: `${this.account}:${name}` } };
    });
  }

  // ---- Inside the simulation. ----

  /** Runs one call: checks the endpoint and the credentials, logs it, turns refusals into provider errors. */
  async #call<T>(client: ProviderClient, service: "iam" | "sts", action: string, run: (principal: Principal, callerArn: string) => T): Promise<T> {
    const record: ProviderCall = { service, action, caller: client.credentials.accessKeyId, accessKeyId: client.credentials.accessKeyId, region: client.region, endpoint: client.endpoint };
    this.#calls.push(record);
    try {
      this.#checkEndpoint(client.endpoint);
      const principal = this.#authenticate(client.credentials);
      const callerArn = principal.kind === "user" ? principal.user.arn : principal.session.arn;
      record.caller = callerArn;
      if (service === "iam" && principal.kind === "session" && principal.session.kind === "federated-user") {
        fail("AccessDenied", `User: ${callerArn} is not authorized to perform: iam:${action}`, 403);
      }
      return run(principal, callerArn);
    } catch (error) {
      record.error = error instanceof CloudProviderError ? error.code : "Error";
      throw error;
    }
  }

  #checkEndpoint(endpoint: string): void {
    if (endpoint === "" || this.#endpoints.has(normalizeEndpoint(endpoint))) return;
    let host = endpoint;
    try {
      host = new URL(endpoint).hostname;
    } catch {
      fail("RequestError", `send request failed caused by: Post "${endpoint}": unsupported protocol scheme ""`, 0);
    }
    fail("RequestError", `send request failed caused by: Post "${endpoint}": dial tcp: lookup ${host}: no such host`, 0);
  }

  #authenticate(credentials: CloudCredentials): Principal {
    const { accessKeyId, secretAccessKey, sessionToken } = credentials;
    const invalid = () => fail("InvalidClientTokenId", "The security token included in the request is invalid.", 403);
    const signature = () =>
      fail(
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided. Check your Secret Access Key and signing method. Consult the service documentation for details.",
        403,
      );
    if (accessKeyId.startsWith("AKIA")) {
      for (const user of this.#users.values()) {
        const secret = user.keys.get(accessKeyId);
        if (secret === undefined) continue;
        if (secret !== secretAccessKey) signature();
        return { kind: "user", user };
      }
      return invalid();
    }
    if (accessKeyId.startsWith("ASIA")) {
      const session = this.#sessions.get(accessKeyId);
      if (!session || sessionToken !== session.sessionToken) return invalid();
      if (session.secretAccessKey !== secretAccessKey) signature();
      if (session.expiration <= this.#now()) fail("ExpiredToken", "The security token included in the request is expired", 403);
      if (session.parentUser !== undefined && !this.#users.has(session.parentUser)) invalid();
      return { kind: "session", session };
    }
    return invalid();
  }

  #checkSessionPolicies(policy: string | undefined, policyArns: string[] | undefined): void {
    if (policy !== undefined && policy !== "") {
      if (policy.length > LIMITS.sessionPolicySize) lengthError(policy, "policy", "less", LIMITS.sessionPolicySize);
      const problem = policyDocumentProblem(policy);
      if (problem) fail("MalformedPolicyDocument", problem);
    }
    const arns = policyArns ?? [];
    if (arns.length > LIMITS.sessionPolicyArns) {
      fail("ValidationError", `1 validation error detected: Value at 'policyArns' failed to satisfy constraint: Member must have length less than or equal to ${LIMITS.sessionPolicyArns}`);
    }
    for (const arn of arns) {
      if (!this.#policies.has(arn)) fail("InvalidParameterValue", `Policy ${arn} does not exist or is not attachable.`);
    }
  }

  #user(name: string): SimUser {
    return this.#users.get(name) ?? fail("NoSuchEntity", `The user with name ${name} cannot be found.`, 404);
  }

  #group(name: string): SimGroup {
    return this.#groups.get(name) ?? fail("NoSuchEntity", `The group with name ${name} cannot be found.`, 404);
  }

  /** The user a call names, else the caller's own (only IAM users have one). */
  #targetUser(principal: Principal, userName: string | undefined): SimUser {
    if (userName !== undefined) return this.#user(userName);
    if (principal.kind !== "user") fail("ValidationError", "Must specify userName when calling with non-User credentials");
    return (principal as { user: SimUser }).user;
  }

  #newUser(name: string, path: string): SimUser {
    const user: SimUser = {
      name,
      path,
      arn: `arn:aws:iam::${this.account}:user${path}${name}`,
      id: `AIDA${randomFrom(BASE32, 17)}`,
      tags: new Map(),
      groups: new Set(),
      inline: new Map(),
      attached: new Set(),
      keys: new Map(),
    };
    this.#users.set(name, user);
    return user;
  }

  #createKey(user: SimUser): AccessKey {
    if (user.keys.size >= LIMITS.accessKeysPerUser) fail("LimitExceeded", `Cannot exceed quota for AccessKeysPerUser: ${LIMITS.accessKeysPerUser}`, 409);
    const accessKeyId = this.#newKeyId("AKIA");
    const secretAccessKey = randomFrom(SECRET_CHARACTERS, 40);
    user.keys.set(accessKeyId, secretAccessKey);
    return { userName: user.name, accessKeyId, secretAccessKey };
  }

  #newKeyId(prefix: "AKIA" | "ASIA"): string {
    for (;;) {
      const id = prefix + randomFrom(BASE32, 16);
      if (!this.#sessions.has(id) && ![...this.#users.values()].some((user) => user.keys.has(id))) return id;
    }
  }

  #newSession(kind: SimSession["kind"], arn: string, durationSeconds: number): SimSession {
    const session: SimSession = {
      kind,
      accessKeyId: this.#newKeyId("ASIA"),
      secretAccessKey: randomFrom(SECRET_CHARACTERS, 40),
      // The provider's session tokens are long opaque base64 strings.
      sessionToken: `IQoJb3JpZ2luX2Vj${randomBytes(240).toString("base64")}`,
      expiration: this.#now() + durationSeconds * 1000,
      arn,
    };
    this.#sessions.set(session.accessKeyId, session);
    // Forget expired sessions now and then, so that the map does not grow without end.
    if (this.#sessions.size % 256 === 0) {
      for (const [id, other] of this.#sessions) if (other.expiration <= this.#now()) this.#sessions.delete(id);
    }
    return session;
  }
}

function userOf(user: SimUser): IamUser {
  return { userName: user.name, userId: user.id, arn: user.arn, path: user.path, ...(user.boundary ? { permissionsBoundary: user.boundary } : {}) };
}

function credentialsOf(session: SimSession): CloudCredentials {
  return { accessKeyId: session.accessKeyId, secretAccessKey: session.secretAccessKey, sessionToken: session.sessionToken };
}

function stsCredentialsOf(session: SimSession): StsCredentials {
  return { ...credentialsOf(session), sessionToken: session.sessionToken, expiration: new Date(session.expiration) };
}

function normalizeEndpoint(endpoint: string): string {
  return trimEndOf(endpoint, "/").toLowerCase();
}

