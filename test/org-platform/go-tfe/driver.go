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

// page shapes a list go-tfe returned: each item by shape, and the page's pagination.
func page[T any](items []T, shape func(T) map[string]interface{}, p *tfe.Pagination) map[string]interface{} {
	shaped := []interface{}{}
	for _, item := range items {
		shaped = append(shaped, shape(item))
	}
	return map[string]interface{}{"items": shaped, "pagination": pagination(p)}
}

func teamList(l *tfe.TeamList) map[string]interface{} {
	return page(l.Items, team, l.Pagination)
}

func oauthClientList(l *tfe.OAuthClientList) map[string]interface{} {
	return page(l.Items, oauthClient, l.Pagination)
}

// result answers what a go-tfe call returned: the value shaped by shape, or go-tfe's error as it is.
func result[T any](shape func(T) map[string]interface{}) func(T, error) (interface{}, error) {
	return func(v T, err error) (interface{}, error) {
		if err != nil {
			return nil, err
		}
		return shape(v), nil
	}
}

// withOptions makes a go-tfe call that takes an organization name or an ID (on) and an options
// struct: the call's options decoded into O, its zero value when none were sent. Options that do
// not decode are the call's error.
func withOptions[O, R any](ctx context.Context, method func(context.Context, string, O) (R, error), on string, options json.RawMessage) (R, error) {
	var o O
	if len(options) > 0 {
		if err := json.Unmarshal(options, &o); err != nil {
			var none R
			return none, err
		}
	}
	return method(ctx, on, o)
}

func do(ctx context.Context, client *tfe.Client, c call) (interface{}, error) {
	switch c.Call {
	case "Meta":
		return map[string]string{"remoteAPIVersion": client.RemoteAPIVersion()}, nil
	case "Teams.List":
		return result(teamList)(withOptions(ctx, client.Teams.List, c.Org, c.Options))
	case "Teams.Create":
		return result(team)(withOptions(ctx, client.Teams.Create, c.Org, c.Options))
	case "Teams.Read":
		return result(team)(client.Teams.Read(ctx, c.ID))
	case "Teams.Update":
		return result(team)(withOptions(ctx, client.Teams.Update, c.ID, c.Options))
	case "Teams.Delete":
		return nil, client.Teams.Delete(ctx, c.ID)
	case "OAuthClients.List":
		return result(oauthClientList)(withOptions(ctx, client.OAuthClients.List, c.Org, c.Options))
	case "OAuthClients.Create":
		return result(oauthClient)(withOptions(ctx, client.OAuthClients.Create, c.Org, c.Options))
	case "OAuthClients.Read":
		return result(oauthClient)(client.OAuthClients.Read(ctx, c.ID))
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
