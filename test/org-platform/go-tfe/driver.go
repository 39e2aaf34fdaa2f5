// A driver for go-tfe (the platform's Go client, as Debian ships it: 0.11.1), used unchanged: it reads one
// call a line on stdin as JSON ({"call": "Teams.Update", "id": "team-…", "options": {…}}), makes it through
// go-tfe, and writes one line of JSON with what go-tfe returned (selected fields of the result, or the
// error text go-tfe gives its caller). test/org-platform/go-tfe.client.test.ts drives it.
//
// Built in GOPATH mode from Debian's /usr/share/gocode: GO111MODULE=off GOPATH=/usr/share/gocode.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	tfe "github.com/hashicorp/go-tfe"
)

type call struct {
	Call    string          `json:"call"`
	Org     string          `json:"org"`
	ID      string          `json:"id"`
	Options json.RawMessage `json:"options"`
}

type reply struct {
	Result interface{} `json:"result,omitempty"`
	Error  *string     `json:"error,omitempty"`
}

func team(t *tfe.Team) map[string]interface{} {
	users := []string{}
	for _, u := range t.Users {
		users = append(users, u.ID)
	}
	memberships := []string{}
	for _, m := range t.OrganizationMemberships {
		memberships = append(memberships, m.ID)
	}
	return map[string]interface{}{
		"id": t.ID, "name": t.Name, "visibility": t.Visibility, "usersCount": t.UserCount,
		"organizationAccess": t.OrganizationAccess, "permissions": t.Permissions,
		"users": users, "organizationMemberships": memberships,
	}
}

func oauthClient(c *tfe.OAuthClient) map[string]interface{} {
	tokens := []string{}
	for _, t := range c.OAuthTokens {
		tokens = append(tokens, t.ID)
	}
	org := ""
	if c.Organization != nil {
		org = c.Organization.Name
	}
	return map[string]interface{}{
		"id": c.ID, "apiURL": c.APIURL, "httpURL": c.HTTPURL, "key": c.Key, "serviceProvider": c.ServiceProvider,
		"serviceProviderName": c.ServiceProviderName, "rsaPublicKey": c.RSAPublicKey, "callbackURL": c.CallbackURL,
		"connectPath": c.ConnectPath, "createdAt": c.CreatedAt, "organization": org, "oauthTokens": tokens,
	}
}

func pagination(p *tfe.Pagination) interface{} {
	if p == nil {
		return nil
	}
	return p
}

func do(ctx context.Context, client *tfe.Client, c call) (interface{}, error) {
	decode := func(into interface{}) error {
		if len(c.Options) == 0 {
			return nil
		}
		return json.Unmarshal(c.Options, into)
	}
	switch c.Call {
	case "Meta":
		return map[string]string{"remoteAPIVersion": client.RemoteAPIVersion()}, nil
	case "Teams.List":
		var o tfe.TeamListOptions
		if err := decode(&o); err != nil {
			return nil, err
		}
		l, err := client.Teams.List(ctx, c.Org, o)
		if err != nil {
			return nil, err
		}
		items := []interface{}{}
		for _, t := range l.Items {
			items = append(items, team(t))
		}
		return map[string]interface{}{"items": items, "pagination": pagination(l.Pagination)}, nil
	case "Teams.Create":
		var o tfe.TeamCreateOptions
		if err := decode(&o); err != nil {
			return nil, err
		}
		t, err := client.Teams.Create(ctx, c.Org, o)
		if err != nil {
			return nil, err
		}
		return team(t), nil
	case "Teams.Read":
		t, err := client.Teams.Read(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		return team(t), nil
	case "Teams.Update":
		var o tfe.TeamUpdateOptions
		if err := decode(&o); err != nil {
			return nil, err
		}
		t, err := client.Teams.Update(ctx, c.ID, o)
		if err != nil {
			return nil, err
		}
		return team(t), nil
	case "Teams.Delete":
		return nil, client.Teams.Delete(ctx, c.ID)
	case "OAuthClients.List":
		var o tfe.OAuthClientListOptions
		if err := decode(&o); err != nil {
			return nil, err
		}
		l, err := client.OAuthClients.List(ctx, c.Org, o)
		if err != nil {
			return nil, err
		}
		items := []interface{}{}
		for _, oc := range l.Items {
			items = append(items, oauthClient(oc))
		}
		return map[string]interface{}{"items": items, "pagination": pagination(l.Pagination)}, nil
	case "OAuthClients.Create":
		var o tfe.OAuthClientCreateOptions
		if err := decode(&o); err != nil {
			return nil, err
		}
		oc, err := client.OAuthClients.Create(ctx, c.Org, o)
		if err != nil {
			return nil, err
		}
		return oauthClient(oc), nil
	case "OAuthClients.Read":
		oc, err := client.OAuthClients.Read(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		return oauthClient(oc), nil
	case "OAuthClients.Delete":
		return nil, client.OAuthClients.Delete(ctx, c.ID)
	}
	return nil, fmt.Errorf("driver: unknown call %q", c.Call)
}

func main() {
	// TFE_ADDRESS and TFE_TOKEN, read by go-tfe's DefaultConfig.
	client, err := tfe.NewClient(tfe.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver: NewClient:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c call
		var r reply
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			msg := err.Error()
			r.Error = &msg
		} else if result, err := do(ctx, client, c); err != nil {
			msg := err.Error()
			r.Error = &msg
		} else {
			r.Result = result
		}
		if err := out.Encode(r); err != nil {
			os.Exit(3)
		}
	}
}
