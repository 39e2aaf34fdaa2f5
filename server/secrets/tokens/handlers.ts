// Handlers of the token store's lookups (GET|POST /auth/token/lookup-self, POST /auth/token/lookup),
// as vault/token_store.go handleLookupSelf and handleLookup answer them.
import { envelope, type SecretsContext, type SecretsHandlerTable } from "../handlers/types.ts";
import { tokenView } from "./lookup.ts";

/** The caller's own entry: dispatch authenticated the token, so it exists. */
function own({ cluster, token }: SecretsContext) {
  return { status: 200 as const, body: envelope(cluster, tokenView(cluster.auth.authenticate(token))) };
}

export const tokenHandlers = {
  lookupOwnToken: (_input, context) => own(context),

  // handleLookupSelf sets the body's token to the caller's own: a token given in the body is ignored.
  lookupOwnTokenByUpdate: (_input, context) => own(context),

  // handleLookup: an empty token means the caller's own; a token the store does not have is
  // ErrPermissionDenied with the message "bad token", which the HTTP layer answers 403 (sdk/logical
  // response_util.go RespondErrorCommon).
  lookupToken: ({ body }, context) => {
    const wanted = body.token ? body.token : context.token;
    const entry = context.cluster.auth.lookup(wanted);
    if (!entry) return { status: 403, body: { errors: ["bad token"] } };
    return { status: 200, body: envelope(context.cluster, tokenView(entry)) };
  },
} satisfies Partial<SecretsHandlerTable>;
