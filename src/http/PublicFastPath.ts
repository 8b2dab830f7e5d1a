/**
 * The fast path for public reads: a GET whose exact path has a current pre-encoded response in
 * the snapshot is answered in the Node request listener, before the Effect router, so the cost
 * of a cached read is close to a bare node:http server's. Anything else (other methods, query
 * strings, a stale snapshot) goes on to the Effect app unchanged.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { ListenOptions } from "node:net"
import type { EncodedResponse } from "../services/PublicSnapshot.js"
import { PublicSnapshot } from "../services/PublicSnapshot.js"
import { writeNode } from "./PublicResponses.js"

/** A node:http server whose "request" events reach the other listeners only when `answer` declines them. */
export const serverWithFastPath = (answer: (request: IncomingMessage, response: ServerResponse) => boolean): Server => {
  const server = createServer()
  const emit = server.emit.bind(server) as (event: string, ...args: Array<unknown>) => boolean
  server.emit = ((event: string, ...args: Array<unknown>) =>
    event === "request" && answer(args[0] as IncomingMessage, args[1] as ServerResponse)
      ? true
      : emit(event, ...args)) as Server["emit"]
  return server
}

/** Answers a GET of a cached path; `lookup` returns nothing when the path is not cached or the snapshot is stale. */
export const answerCached = (lookup: (path: string) => EncodedResponse | undefined) =>
(request: IncomingMessage, response: ServerResponse): boolean => {
  if (request.method !== "GET" || request.url === undefined) return false
  const cached = lookup(request.url)
  if (cached === undefined) return false
  writeNode(request, response, cached)
  return true
}

/** NodeHttpServer.layer on a server with the fast path over the process's PublicSnapshot. */
export const PublicHttpServer = (options: ListenOptions) =>
  Layer.unwrapEffect(
    Effect.map(PublicSnapshot, (snapshot) =>
      NodeHttpServer.layer(() => serverWithFastPath(answerCached(snapshot.cachedNow)), options))
  ).pipe(Layer.provide(PublicSnapshot.Default))
