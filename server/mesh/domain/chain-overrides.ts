// The body of POST /v1/discovery-chain/{service} as the real agent decodes it
// (agent/discovery_chain_endpoint.go decodeDiscoveryChainReadRequest): lib.TranslateKeys turns the
// snake_case spellings into the field names, then mapstructure fills the three override fields,
// matching keys in any case and ignoring every key it has no field for.

import type { components } from "../../../generated/mesh/schema.ts";
import { objectMembers } from "../../shared/json-body.ts";
import { weakString } from "./weak-input.ts";

const FIELDS = [
  { name: "OverrideMeshGateway", alias: "override_mesh_gateway" },
  { name: "OverrideProtocol", alias: "override_protocol" },
  { name: "OverrideConnectTimeout", alias: "override_connect_timeout" },
] as const;

/** The answer for a mode that is not one of the known ones (DiscoveryChainRead writes it itself). */
export const BAD_MESH_GATEWAY_MODE = "Invalid OverrideMeshGateway.Mode parameter";

/** structs.ValidateMeshGatewayMode: the empty mode is the default, the others exact. */
const MESH_GATEWAY_MODES: ReadonlySet<string> = new Set(["", "none", "local", "remote"]);

/**
 * The override fields under their own names; other keys dropped. The exact field name wins, then any
 * other spelling in another case, then the snake_case alias (TranslateKeys keeps a key already given
 * in the canonical spelling over its alias). Values are left as they are, for the description's
 * validator to type-check; only OverrideMeshGateway is rebuilt (its `Mode`, in any case).
 */
export function decodeChainOverrides(body: unknown): unknown {
  const members = objectMembers(body);
  if (!members) return body;
  const keys = Object.keys(members);
  const decoded: Record<string, unknown> = {};
  for (const { name, alias } of FIELDS) {
    const key =
      (Object.hasOwn(members, name) ? name : undefined) ??
      keys.find((k) => k.toLowerCase() === name.toLowerCase()) ??
      keys.find((k) => k.toLowerCase() === alias);
    if (key === undefined) continue;
    const value = members[key];
    decoded[name] = name === "OverrideMeshGateway" ? meshGateway(value) : value;
  }
  return decoded;
}

function meshGateway(value: unknown): unknown {
  const members = objectMembers(value);
  if (!members) return value;
  const key = Object.hasOwn(members, "Mode") ? "Mode" : Object.keys(members).find((k) => k.toLowerCase() === "mode");
  return key === undefined ? {} : { Mode: members[key] };
}

/**
 * The mode check DiscoveryChainRead makes after decoding: a mode that is not one of the known ones
 * (in their exact spelling) is refused; anything but a string is not one of them either.
 */
export function meshGatewayModeProblem(decoded: unknown): string | undefined {
  const gateway = objectMembers(objectMembers(decoded)?.OverrideMeshGateway);
  if (!gateway) return undefined;
  const mode = gateway.Mode;
  if (mode === undefined || mode === null) return undefined;
  return typeof mode === "string" && MESH_GATEWAY_MODES.has(mode) ? undefined : BAD_MESH_GATEWAY_MODE;
}

type Overrides = NonNullable<components["schemas"]["DiscoveryChainOverrides"]>;

/**
 * OverrideProtocol as the decoder leaves it in its string field (mapstructure decodeString): text as
 * written, a number or a boolean as its text; `null` is no override. (Anything else was refused.)
 */
export function overrideProtocol(value: Overrides["OverrideProtocol"]): string | undefined {
  if (value == null) return undefined;
  const read = weakString(value, "OverrideProtocol");
  return read && "value" in read ? read.value : undefined;
}

/** OverrideMeshGateway with its `null`s read as unset (the mode was checked by meshGatewayModeProblem). */
export function overrideMeshGateway(value: Overrides["OverrideMeshGateway"]): { Mode?: NonNullable<NonNullable<Overrides["OverrideMeshGateway"]>["Mode"]> } | undefined {
  if (value == null) return undefined;
  return value.Mode == null ? {} : { Mode: value.Mode };
}
