// The secrets service's token table on its own (server/secrets/sys/auth.ts): who a token is, and whether it
// may act on a path. Every refusal is the same 403 `permission denied`, whatever was wrong.
import { describe, expect, it } from "vitest";
import { PermissionDeniedError } from "../../server/secrets/errors.ts";
import { AccessControl } from "../../server/secrets/sys/auth.ts";
import type { World } from "../../server/secrets/world.ts";
import { thrownBy } from "../helpers/thrown.ts";

const ROOT = "root-token";
const world: World = {
  policies: [
    { name: "reader", path: { "secret/*": { capabilities: ["read", "list"] } } },
    { name: "writer", path: { "secret/app/*": { capabilities: ["create", "update"] }, "secret/app/locked": { capabilities: ["deny"] } } },
  ],
  tokens: [
    { id: "reader-token", policies: ["reader"], display_name: "token-reader" },
    { id: "both-token", policies: ["reader", "writer"] },
    { id: "no-policy-token", policies: [] },
  ],
};

function accessControl(): AccessControl {
  let n = 0;
  return new AccessControl(ROOT, world, () => `accessor-${++n}`);
}

describe("AccessControl", () => {
  it("knows the root token as the root policy's, and each world token with its own policies, name and accessor", () => {
    const access = accessControl();
    const root = access.authenticate(ROOT);
    expect(root).toMatchObject({ id: ROOT, policies: ["root"], displayName: "root", accessor: "accessor-1" });
    expect(access.authenticate("reader-token")).toMatchObject({ id: "reader-token", policies: ["reader"], displayName: "token-reader", accessor: "accessor-2" });
    // A world token without a display name is shown as "token".
    expect(access.authenticate("both-token")).toMatchObject({ id: "both-token", policies: ["reader", "writer"], displayName: "token", accessor: "accessor-3" });
    expect(access.lookup("no-policy-token")?.policies).toEqual([]);
  });

  it("refuses no token, an empty one and an unknown one with 403 permission denied, and looks none of them up", () => {
    const access = accessControl();
    for (const token of [undefined, "", "unknown", `${ROOT} `, ROOT.toUpperCase()]) {
      expect(access.lookup(token), String(token)).toBeUndefined();
      const error = thrownBy(() => access.authenticate(token));
      expect(error, String(token)).toBeInstanceOf(PermissionDeniedError);
      expect((error as PermissionDeniedError).status).toBe(403);
      expect((error as PermissionDeniedError).message).toBe("permission denied");
      expect(thrownBy(() => access.authorize(token, "secret/x", ["read"])), String(token)).toBeInstanceOf(PermissionDeniedError);
    }
  });

  it("lets the root token do anything anywhere, sudo included", () => {
    const access = accessControl();
    expect(access.authorize(ROOT, "sys/rekey/init", ["update", "sudo"]).id).toBe(ROOT);
    expect(access.authorize(ROOT, "anything/at/all", ["create", "read", "update", "delete", "list"]).id).toBe(ROOT);
  });

  it("authorizes a token only for every capability asked, on the paths its policies grant them", () => {
    const access = accessControl();
    expect(access.authorize("reader-token", "secret/x", ["read"]).id).toBe("reader-token");
    expect(access.authorize("reader-token", "secret/x", ["read", "list"]).id).toBe("reader-token");
    expect(access.authorize("reader-token", "secret/x", []).id).toBe("reader-token");
    expect(thrownBy(() => access.authorize("reader-token", "secret/x", ["read", "update"]))).toBeInstanceOf(PermissionDeniedError);
    expect(thrownBy(() => access.authorize("reader-token", "other/x", ["read"]))).toBeInstanceOf(PermissionDeniedError);
    // Two policies' grants on one path add up; a deny on the deciding pattern takes everything away.
    expect(access.authorize("both-token", "secret/app/one", ["create", "update"]).id).toBe("both-token");
    expect(access.authorize("both-token", "secret/other", ["read"]).id).toBe("both-token");
    expect(thrownBy(() => access.authorize("both-token", "secret/app/locked", ["read"]))).toBeInstanceOf(PermissionDeniedError);
    expect(thrownBy(() => access.authorize("no-policy-token", "secret/x", ["read"]))).toBeInstanceOf(PermissionDeniedError);
  });

  it("refuses a world whose token is the root token", () => {
    expect(() => new AccessControl(ROOT, { policies: [], tokens: [{ id: ROOT, policies: [] }] }, () => "a")).toThrow(`world token "${ROOT}" is the root token`);
  });

  it("keeps where each token was made and when: the root token at auth/token/root, the world's at auth/token/create, all at the table's creation", () => {
    const access = new AccessControl(ROOT, world, () => "a", 1_795_690_800);
    expect(access.authenticate(ROOT)).toMatchObject({ path: "auth/token/root", creationTime: 1_795_690_800 });
    expect(access.authenticate("reader-token")).toMatchObject({ path: "auth/token/create", creationTime: 1_795_690_800 });
    const before = Math.floor(Date.now() / 1000);
    const now = accessControl().authenticate("both-token").creationTime;
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(Number.isInteger(now)).toBe(true);
  });

  it("keeps a world token's policies sorted and once each (vault policyutil.SanitizePolicies)", () => {
    const access = new AccessControl(ROOT, { policies: world.policies, tokens: [{ id: "t", policies: ["writer", "reader", "writer"] }] }, () => "a");
    expect(access.authenticate("t").policies).toEqual(["reader", "writer"]);
    expect(access.authorize("t", "secret/app/x", ["update"]).id).toBe("t");
    expect(access.authorize("t", "secret/other", ["read"]).id).toBe("t");
  });

  it("lets every token read auth/token/lookup-self (the real default policy's rule), nothing more there and nothing else", () => {
    const access = accessControl();
    for (const token of ["reader-token", "both-token", "no-policy-token"]) {
      expect(access.authorize(token, "auth/token/lookup-self", ["read"]).id).toBe(token);
      expect(thrownBy(() => access.authorize(token, "auth/token/lookup-self", ["update"]))).toBeInstanceOf(PermissionDeniedError);
      expect(thrownBy(() => access.authorize(token, "auth/token/lookup", ["update"]))).toBeInstanceOf(PermissionDeniedError);
      expect(thrownBy(() => access.authorize(token, "auth/token/lookup-self/x", ["read"]))).toBeInstanceOf(PermissionDeniedError);
    }
    expect(access.authorize(ROOT, "auth/token/lookup-self", ["read", "update"]).id).toBe(ROOT);
    // The rule is not a policy the token is said to hold.
    expect(access.authenticate("no-policy-token").policies).toEqual([]);
  });

  it("lets a world policy deny the self lookup, or grant more on it", () => {
    const policies = [
      { name: "hide", path: { "auth/token/lookup-self": { capabilities: ["deny" as const] } } },
      { name: "more", path: { "auth/token/lookup-self": { capabilities: ["update" as const] } } },
    ];
    const access = new AccessControl(ROOT, { policies, tokens: [{ id: "hidden", policies: ["hide", "more"] }, { id: "more", policies: ["more"] }] }, () => "a");
    expect(thrownBy(() => access.authorize("hidden", "auth/token/lookup-self", ["read"]))).toBeInstanceOf(PermissionDeniedError);
    expect(access.authorize("more", "auth/token/lookup-self", ["read", "update"]).id).toBe("more");
  });
});
