// Who calls (OrgPlatformService.authenticate): a bearer token of a user, a team or an organization
// that still exists. Anything else, including a token whose owner is gone, is the platform's 401.
import { describe, expect, it } from "vitest";
import { DEFAULT_WORLD } from "../../server/org-platform/default-world.ts";
import { ApiError } from "../../server/org-platform/domain/errors.ts";
import type { ApiToken } from "../../server/org-platform/domain/model.ts";
import { loadWorld } from "../../server/org-platform/domain/world.ts";
import { OrgPlatformService } from "../../server/org-platform/service.ts";
import { MemoryOrgPlatformStore, type OrgPlatformStore } from "../../server/org-platform/store/store.ts";
import { thrownBy } from "../helpers/thrown.ts";

const service = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(DEFAULT_WORLD)));

function refusal(secret: string | undefined, on = service): ApiError {
  const error = thrownBy(() => on.authenticate(secret));
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("authenticate", () => {
  it("knows a user's, a team's and an organization's token as that caller", () => {
    expect(service.authenticate("alice.atlasv1.dev-user-token")).toMatchObject({ kind: "user", user: { username: "alice" } });
    expect(service.authenticate("acme-developers.atlasv1.dev-team-token")).toMatchObject({ kind: "team", team: { name: "developers", organization: "acme" } });
    expect(service.authenticate("acme.atlasv1.dev-organization-token")).toEqual({ kind: "organization", organization: "acme" });
  });

  it("refuses no token, an empty one and an unknown one with the platform's 401", () => {
    for (const secret of [undefined, "", "nobody.atlasv1.token", "alice.atlasv1.dev-user-token "]) {
      const error = refusal(secret);
      expect(error.status, String(secret)).toBe(401);
      expect(error.errors).toEqual([{ status: "401", title: "unauthorized" }]);
    }
  });

  it("refuses a token whose user, team or organization no longer exists", () => {
    const tokens: Record<string, ApiToken> = {
      "gone-user": { secret: "gone-user", kind: "user", userId: "user-gone" },
      "gone-team": { secret: "gone-team", kind: "team", teamId: "team-gone" },
      "gone-org": { secret: "gone-org", kind: "organization", organization: "gone" },
    };
    // A store that still holds the tokens but none of their owners.
    const store = { apiToken: (secret: string) => tokens[secret], user: () => undefined, team: () => undefined, organization: () => undefined } as unknown as OrgPlatformStore;
    const orphaned = new OrgPlatformService(store);
    for (const secret of Object.keys(tokens)) expect(refusal(secret, orphaned).status, secret).toBe(401);
  });
});
