// Push-MFA methods of the identity store: stored in the cluster's storage under
// `identity/mfa/method/<id>` (with the namespace they belong to), read, listed, updated and deleted
// with the real system's namespace rules; a method a login enforcement uses cannot be deleted.
// Login enforcements come from the world file (SECRETS_WORLD `mfa_login_enforcements`).
import { Refusal } from "../errors.ts";
import { isStoredObject, storedWhere, StoredRecords } from "../store/records.ts";
import type { Storage } from "../store/storage.ts";
import type { BodyRead } from "../wire.ts";
import { lenientBoolean } from "../framework-fields.ts";
import { canonicalNamespace, isAncestor, withParents } from "./namespaces.ts";

/** A create or update body (after the description's schema check). */
export type PushMfaInput = BodyRead<"PushMfaMethodInput">;

export interface StoredPushMfaMethod {
  id: string;
  type: "pushmfa";
  namespace_path: string;
  api_hostname: string;
  integration_key: string;
  secret_key: string;
  push_info: string;
  username_format: string;
  use_passcode: boolean;
}

/** A login enforcement: which MFA methods a login must pass, for which logins. */
export interface MfaLoginEnforcement {
  id: string;
  name: string;
  namespace_path: string;
  mfa_method_ids: string[];
  auth_method_accessors: string[];
  auth_method_types: string[];
  identity_group_ids: string[];
  identity_entity_ids: string[];
}

/** A push-MFA method declared in the world file: the body of a create, with its id and namespace. */
export interface WorldPushMfaMethod extends PushMfaInput {
  id: string;
  namespace_path: string;
}

export interface IdentitySettings {
  /** Namespaces besides the root, canonical (`team-a/`), parents included. */
  namespaces: string[];
  methods: WorldPushMfaMethod[];
  enforcements: MfaLoginEnforcement[];
}

export const METHOD_PREFIX = "identity/mfa/method/";

/** The keys a method cannot do without, in the order the real system checks them. */
const REQUIRED_KEYS = ["secret_key", "integration_key", "api_hostname"] as const;

/**
 * Why a write's settings are refused, as the real system says it (vault/login_mfa.go parseDuoConfig,
 * 1.10-1.15): the first of the three keys that is empty or left out, `<key> is empty`. Only the empty
 * text is empty (blanks are a value), and `username_format` is not checked when a method is
 * written: the real system renders it at login, and stores any text.
 */
export function pushMfaProblem(input: Partial<Record<(typeof REQUIRED_KEYS)[number], unknown>>): string | undefined {
  const empty = REQUIRED_KEYS.find((key) => typeof input[key] !== "string" || input[key] === "");
  return empty === undefined ? undefined : `${empty} is empty`;
}

/**
 * The settings of a write checked: the method's fields, or the refusal. A `username_format` left out
 * keeps `current`'s (the real system's update), everything else is replaced.
 */
export function checkPushMfaInput(
  input: PushMfaInput,
  current?: Pick<StoredPushMfaMethod, "username_format">,
): { value: Omit<StoredPushMfaMethod, "id" | "type" | "namespace_path"> } | { problem: string } {
  const problem = pushMfaProblem(input);
  if (problem !== undefined) return { problem };
  return {
    value: {
      api_hostname: input.api_hostname,
      integration_key: input.integration_key,
      secret_key: input.secret_key,
      push_info: input.push_info ?? "",
      username_format: input.username_format ?? current?.username_format ?? "",
      use_passcode: lenientBoolean(input.use_passcode, false),
    },
  };
}

/** A method as a list shows it (`key_info`): its settings without `secret_key`. */
export function listedView(method: StoredPushMfaMethod) {
  return {
    id: method.id,
    type: method.type,
    api_hostname: method.api_hostname,
    integration_key: method.integration_key,
    pushinfo: method.push_info,
    username_format: method.username_format,
    use_passcode: method.use_passcode,
    namespace_path: method.namespace_path,
  };
}

/** A method in the seed's read shape: its settings and `secret_key`. */
export function methodView(method: StoredPushMfaMethod) {
  return { ...listedView(method), secret_key: method.secret_key };
}

const NAMESPACE_MISMATCH = "request namespace does not match method namespace";

export class PushMfaMethods {
  readonly #namespaces: Set<string>;
  /** The methods by id; anything else stored under their prefix is no push-MFA method. */
  readonly #methods: StoredRecords<StoredPushMfaMethod>;

  constructor(
    storage: Storage,
    private readonly settings: IdentitySettings,
    private readonly newId: () => string,
  ) {
    this.#methods = new StoredRecords(storage, METHOD_PREFIX, storedWhere((stored) => isStoredObject(stored) && stored.type === "pushmfa"));
    this.#namespaces = new Set(["", ...settings.namespaces]);
    // The world's methods are stored at start, like methods created through the API.
    for (const { id, namespace_path, ...input } of settings.methods) {
      if (this.#get(id)) continue;
      const checked = checkPushMfaInput(input);
      if ("problem" in checked) throw new Error(`mfa method ${id}: ${checked.problem}`);
      this.#put({ id, type: "pushmfa", namespace_path, ...checked.value });
    }
  }

  /** The request's namespace, canonical; 400 when it is malformed or unknown. */
  namespace(header: string | undefined): string {
    const namespace = canonicalNamespace(header);
    if (typeof namespace !== "string") throw new Refusal(400, [namespace.error]);
    if (!this.#namespaces.has(namespace)) throw new Refusal(400, [`namespace ${JSON.stringify(namespace)} does not exist`]);
    return namespace;
  }

  create(namespace: string, input: PushMfaInput): string {
    const checked = checkPushMfaInput(input);
    if ("problem" in checked) throw new Refusal(400, [checked.problem]);
    const id = this.newId();
    this.#put({ id, type: "pushmfa", namespace_path: namespace, ...checked.value });
    return id;
  }

  /**
   * As the real system (vault/login_mfa.go handleMFAMethodUpdateCommon, 1.14): an id that does not
   * exist is no update at all (204, nothing written, the body not even checked); a method of any
   * other namespace is refused with the namespace mismatch.
   */
  update(namespace: string, id: string, input: PushMfaInput): void {
    const current = this.#get(id);
    if (!current) return;
    if (current.namespace_path !== namespace) throw new Refusal(400, [NAMESPACE_MISMATCH]);
    const checked = checkPushMfaInput(input, current);
    if ("problem" in checked) throw new Refusal(400, [checked.problem]);
    this.#put({ ...current, ...checked.value });
  }

  /** The method when the namespace may read it: its own, a parent's or a child's. */
  read(namespace: string, id: string): StoredPushMfaMethod | undefined {
    return this.#visible(id, namespace);
  }

  delete(namespace: string, id: string): void {
    const current = this.#visible(id, namespace);
    if (!current) return;
    if (current.namespace_path !== namespace) throw new Refusal(400, [NAMESPACE_MISMATCH]);
    const enforcement = this.settings.enforcements.find((e) => e.mfa_method_ids.includes(id));
    if (enforcement) {
      throw new Refusal(400, [`methodID is still used by an enforcement configuration with ID: ${enforcement.id} (login enforcement ${JSON.stringify(enforcement.name)})`]);
    }
    this.#methods.delete(id);
  }

  /** The methods of the namespace and its parents, sorted by id. */
  list(namespace: string): StoredPushMfaMethod[] {
    const visible = new Set(withParents(namespace));
    return this.#methods
      .all()
      .filter((method) => visible.has(method.namespace_path))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  #visible(id: string, namespace: string): StoredPushMfaMethod | undefined {
    const method = this.#get(id);
    if (!method) return undefined;
    const own = method.namespace_path;
    return own === namespace || isAncestor(own, namespace) || isAncestor(namespace, own) ? method : undefined;
  }

  #get(id: string): StoredPushMfaMethod | undefined {
    return this.#methods.get(id);
  }

  #put(method: StoredPushMfaMethod): void {
    this.#methods.put(method.id, method);
  }
}
