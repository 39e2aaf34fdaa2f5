// What a token lookup answers: the token table's entry in the real token store's words
// (vault/token_store.go handleLookup). The service's tokens never expire and have no lease, so
// `expire_time` is null and `ttl` 0, and the lease-derived members (`renewable`, `issue_time`,
// `last_renewal_time`) are left out, as the real handler leaves them out when the token has no lease.
import type { TokenEntry } from "../sys/auth.ts";
import type { Schemas } from "../wire.ts";

export function tokenView(entry: TokenEntry): Schemas["TokenLookup"] {
  return {
    accessor: entry.accessor,
    creation_time: entry.creationTime,
    creation_ttl: 0,
    display_name: entry.displayName,
    entity_id: "",
    expire_time: null,
    explicit_max_ttl: 0,
    id: entry.id,
    meta: null,
    num_uses: 0,
    // No token of the service has a parent: the root token is made without one, the world's as orphans.
    orphan: true,
    path: entry.path,
    policies: [...entry.policies],
    ttl: 0,
    type: "service",
  };
}
