import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { BadRequest, NotFound, TooManyRequests } from "../domain/Errors.js"
import { Class } from "../domain/Named.js"
import { endpointDocs, groupDocs } from "./Docs.js"

/** What Uptime Kuma's push URL answers, so a script that reads it keeps working. */
export class PushAccepted extends Class<PushAccepted>("PushAccepted")({ ok: Schema.Literal(true) }) {}

const PushPath = Schema.Struct({ pushToken: Schema.String })

/** Uptime Kuma's parameters: `status` (up or down; up when absent), `msg`, `ping` (ms). Checked by PushHttp. */
const PushQuery = Schema.Struct({
  status: Schema.optionalKey(Schema.String),
  msg: Schema.optionalKey(Schema.String),
  ping: Schema.optionalKey(Schema.String)
})

/** GET and POST take the same: a job may call the URL either way. */
const push = {
  params: PushPath,
  query: PushQuery,
  success: PushAccepted,
  error: [BadRequest, NotFound, TooManyRequests]
} as const

const docs = (method: string) =>
  endpointDocs(
    `Push a heartbeat (${method})`,
    "The URL of a push monitor, called by the job it watches (a cron line, a backup script). No " +
      "authentication: the token is the secret. Query parameters as Uptime Kuma's push URL takes them: " +
      "`status` `up` (the default) or `down`, `msg` (kept with a down push, at most 1000 characters), `ping` " +
      "(a response time in ms, 0–120000). A body is not read. Answers `{ \"ok\": true }`.",
    "A push counts for the monitor's slot it falls in, or for the slot before while that one's " +
      "`graceSeconds` run and it has no run yet; a slot has one run, so a second push in it is acknowledged " +
      "and not stored. `down` is a failed run at once. An unknown token or a paused monitor's is **404** " +
      "(answered from memory, without a database query); over 10 pushes at once, then one per 6 s, per " +
      "token is **429** with `Retry-After`; a bad `status` or `ping` is **400**."
  )

export class PushApi extends HttpApiGroup.make("push")
  .add(HttpApiEndpoint.get("get", "/:pushToken", push).annotateMerge(docs("GET")))
  .add(HttpApiEndpoint.post("post", "/:pushToken", push).annotateMerge(docs("POST")))
  .prefix("/api/v1/push")
  .annotateMerge(groupDocs(
    "Push monitors' heartbeats: the job a push monitor watches calls its secret URL; no push within the " +
      "monitor's interval and grace is a failed run (docs/monitor-fleet.md, \"Push monitors\")."
  ))
{}
