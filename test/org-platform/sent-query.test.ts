// The query as sent, read under the described wire names (server/org-platform/http/sent-query.ts).
import { describe, expect, it } from "vitest";
import type { operations } from "../../generated/org-platform/schema.ts";
import { SentQuery, type OperationQueryName } from "../../server/org-platform/http/sent-query.ts";

type TeamListQuery = SentQuery<OperationQueryName<operations["listTeams"]>>;
const sent = (search: string): TeamListQuery => new SentQuery(search);

describe("the query as sent", () => {
  it("reads brackets as they are or percent-encoded alike", () => {
    expect(sent("page[number]=2&page%5Bsize%5D=5").get("page[number]")).toBe("2");
    expect(sent("page[number]=2&page%5Bsize%5D=5").get("page[size]")).toBe("5");
    expect(sent("filter%5bnames%5d=a,b").get("filter[names]")).toBe("a,b");
  });

  it("tells an absent parameter from an empty one", () => {
    expect(sent("q=").get("q")).toBe("");
    expect(sent("").get("q")).toBeUndefined();
  });

  it("gives every value of a repeated parameter, in order", () => {
    expect(sent("include=users&q=x&include=organization-memberships").getAll("include")).toEqual(["users", "organization-memberships"]);
  });

  it("keeps every other pair as sent, undescribed ones too, in order", () => {
    const query = sent("show_affected_workspaces=true&page%5Bnumber%5D=3&q=dev&page[size]=1&q=ops");
    expect(query.pairsWithout("page[number]", "page[size]")).toEqual([
      ["show_affected_workspaces", "true"],
      ["q", "dev"],
      ["q", "ops"],
    ]);
  });
});
