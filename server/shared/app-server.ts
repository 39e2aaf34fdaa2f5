// The HTTP server of an Express app, its requests and responses made with the app's own prototypes.
//
// Express gives each request and response the app's prototypes as they arrive (app.request and
// app.response, by Object.setPrototypeOf). V8 then keeps no shared shape (hidden class) for these
// objects: every property set on them afterwards (Express's req.baseUrl and req.params, the
// validator's req.openapi and req.query, res.locals) copies the object's property table, about
// 1.5 µs each instead of 0.08 (bench/property-cost.ts), and the code reading them runs unoptimized. Node's server takes the
// classes it makes requests and responses with (createServer's IncomingMessage and ServerResponse
// options); made with the app's prototypes from the start, Express's Object.setPrototypeOf finds
// the prototype already in place and changes nothing. Measured on a fresh read of the org team
// page: docs/benchmarks.md. (Express issue 5998 describes the cost.)
import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from "node:http";
import type { Express } from "express";

/** An HTTP server answering with `app`, whose requests and responses are born with the app's prototypes. */
export function createAppServer(app: Express, options: ServerOptions = {}): Server {
  return createServer({ ...options, IncomingMessage: bornWith(IncomingMessage, app.request), ServerResponse: bornWith(ServerResponse, app.response) }, app);
}

/**
 * Node's class `NodeClass`, its instances with `prototype` as their prototype. Written as a function
 * constructor that runs Node's with the arguments Node gives, so that its prototype can be the
 * app's object itself (a class's cannot be set; Node's constructors are plain functions, and every
 * test's request would fail if one became a class).
 */
function bornWith<C extends typeof IncomingMessage | typeof ServerResponse>(NodeClass: C, prototype: object): C {
  function AppClass(this: object, ...args: unknown[]) {
    Reflect.apply(NodeClass, this, args);
  }
  AppClass.prototype = prototype;
  return AppClass as unknown as C;
}
