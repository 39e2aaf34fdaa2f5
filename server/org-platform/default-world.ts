// The world the reference server starts with when ORG_PLATFORM_WORLD is not set. Ids and tokens are
// fixed so that docs/org-platform.md and the description's examples can name them.
import type { WorldFile } from "./domain/world.ts";

export const DEFAULT_WORLD: WorldFile = {
  users: [
    { id: "user-Vm2oHZy9fJr8tWq3", username: "alice", email: "alice@acme.example", tokens: ["alice.atlasv1.dev-user-token"] },
    { id: "user-Kp7sQx4nLb2cRt9W", username: "bob", email: "bob@acme.example", tokens: ["bob.atlasv1.dev-user-token"] },
    { id: "user-Hc5vNw8eTy3mZa6P", username: "carol", email: "carol@acme.example", tokens: ["carol.atlasv1.dev-user-token"] },
    { id: "user-Rf4gJk9uXe2bNs7L", username: "dave", email: "dave@acme.example", tokens: ["dave.atlasv1.dev-user-token"] },
    { id: "user-Yt6dCm3pWq8hLv5K", username: "erin", email: "erin@globex.example", tokens: ["erin.atlasv1.dev-user-token"] },
  ],
  organizations: [
    {
      name: "acme",
      "external-id": "org-Ud2mTq8xKw5nRb3J",
      email: "admin@acme.example",
      "created-at": "2023-01-10T09:00:00.000Z",
      plan: "business",
      token: "acme.atlasv1.dev-organization-token",
      members: [
        { id: "ou-Wb6nPy2kDs9tLx4Q", user: "alice", "created-at": "2023-01-10T09:00:00.000Z" },
        { id: "ou-Nf3hKq7wZm2cVr8T", user: "bob", "created-at": "2023-01-11T09:00:00.000Z" },
        { id: "ou-Jd8sXt4bGp6yQn2M", user: "carol", "created-at": "2023-01-11T09:30:00.000Z" },
        { id: "ou-Ps5mLc9vHw3kTz7R", user: "dave", status: "invited", "created-at": "2023-04-01T09:00:00.000Z" },
      ],
      projects: [
        { id: "prj-Qw8sJ3nRt5vKx2Lm", name: "Default Project", description: null, "created-at": "2023-01-10T09:00:00.000Z" },
        { id: "prj-Zc4hNp7bWy2dFs9T", name: "platform", description: "Shared platform infrastructure", "created-at": "2023-01-12T08:00:00.000Z" },
        { id: "prj-Ge6rTk2mXv8qLw4S", name: "data", description: "Data pipelines", "created-at": "2023-01-12T08:30:00.000Z" },
      ],
      teams: [
        {
          id: "team-Dv3LpQn8sWc4Xe2B",
          name: "owners",
          visibility: "secret",
          members: ["alice"],
          token: "acme-owners.atlasv1.dev-team-token",
          "created-at": "2023-01-10T09:00:00.000Z",
        },
        {
          id: "team-Mx7kRb2tYq9hWn5C",
          name: "developers",
          visibility: "organization",
          "organization-access": { "read-projects": true, "read-workspaces": true },
          // dave is invited but has not accepted: hidden from team responses until then.
          members: ["bob", "carol", "dave"],
          token: "acme-developers.atlasv1.dev-team-token",
          "created-at": "2023-01-11T10:00:00.000Z",
        },
        {
          id: "team-Pn4wXc8sLd2vQj6H",
          name: "platform",
          visibility: "secret",
          "sso-team-id": "platform-engineers",
          "organization-access": { "manage-vcs-settings": true, "manage-workspaces": true, "manage-membership": true },
          members: ["carol"],
          token: "acme-platform.atlasv1.dev-team-token",
          "created-at": "2023-01-12T10:00:00.000Z",
        },
        {
          id: "team-Sb9tKv3nWp7mXr2F",
          name: "security",
          visibility: "secret",
          "created-at": "2023-02-20T10:00:00.000Z",
        },
      ],
      "oauth-clients": [
        {
          id: "oc-V5sxDk9wuGzo1V2R",
          uuid: "5b8c1d2e-4f6a-4b3c-9d7e-1a2b3c4d5e6f",
          "service-provider": "vcs_a",
          name: "Acme on VCS A",
          "http-url": "https://vcs-a.example",
          "api-url": "https://api.vcs-a.example",
          "organization-scoped": true,
          "oauth-tokens": [{ id: "ot-Lq2nWv8xKc5tRb7J", "service-provider-user": "acme-bot" }],
          "created-at": "2023-02-01T10:00:00.000Z",
        },
        {
          id: "oc-Tb3mKx7wQn9sVc4D",
          uuid: "0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b",
          "service-provider": "vcs_b_hosted",
          "http-url": "https://vcs-b.example",
          "api-url": "https://vcs-b.example/api/v4",
          key: "platform-app",
          "organization-scoped": false,
          projects: ["prj-Zc4hNp7bWy2dFs9T"],
          "oauth-tokens": [{ id: "ot-Hs6vNc2pXw8kLm4T", "service-provider-user": "platform-bot" }],
          "created-at": "2023-03-15T14:30:00.000Z",
        },
      ],
    },
    {
      name: "globex",
      "external-id": "org-Gx7bNq3sWt9kLm2V",
      email: "admin@globex.example",
      "created-at": "2023-02-01T09:00:00.000Z",
      plan: "team",
      // A self-hosted installation of release v202204-1: sso-team-id without the Business tier.
      "self-hosted-release": "v202204-1",
      token: "globex.atlasv1.dev-organization-token",
      members: [{ id: "ou-Gm4sXq8kNt2wVb6L", user: "erin", "created-at": "2023-02-01T09:00:00.000Z" }],
      projects: [{ id: "prj-Gb2xKm8sNq4wVt7C", name: "Default Project", "created-at": "2023-02-01T09:00:00.000Z" }],
      teams: [
        { id: "team-Gw5nVb8sKq2xTm6D", name: "owners", members: ["erin"], token: "globex-owners.atlasv1.dev-team-token", "created-at": "2023-02-01T09:00:00.000Z" },
      ],
    },
    {
      name: "initech",
      "external-id": "org-In4kWx9mTb2sQv6N",
      email: "admin@initech.example",
      "created-at": "2023-03-01T09:00:00.000Z",
      // No team management: only the owners team, and no team can be created.
      plan: "free",
      token: "initech.atlasv1.dev-organization-token",
      members: [{ id: "ou-Iv7nTq2xKs9mWb4P", user: "bob", "created-at": "2023-03-01T09:00:00.000Z" }],
      projects: [{ id: "prj-Ir7nXw2kTb5sQm9V", name: "Default Project", "created-at": "2023-03-01T09:00:00.000Z" }],
      teams: [{ id: "team-Iq8mTs3vNw6kXb2L", name: "owners", members: ["bob"], "created-at": "2023-03-01T09:00:00.000Z" }],
    },
  ],
};
