import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, NotFound } from "../domain/Errors.js"
import { CreateMonitor, Monitor, MonitorId, MonitorRun, runsPageBounds, UpdateMonitor } from "../domain/Monitor.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const MonitorPath = Schema.Struct({ id: MonitorId })

export class MonitorsApi extends HttpApiGroup.make("monitors")
  .add(
    HttpApiEndpoint.get("list", "/", { query: pageQueryFields(adminPageBounds), success: Schema.Array(Monitor.json) })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List monitors",
        "Every monitor, oldest first, with `state` (`unknown` until checked, `up`, `degraded`, `down`), " +
          "`reportingRegions` (the regions whose data counts now: checked within the last two intervals and not " +
          "offline) and `regionStates` (per region: `ok`, `consecutiveFailures`, `lastScheduledAt`, " +
          "`lastCheckedAt`, `lastDurationMs`, `lastStatusCode`, `lastError`). Header values are answered as " +
          "`\"********\"`.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: MonitorPath, success: Monitor.json, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read a monitor",
        "One monitor as the list shows it (header values masked), with its `ETag` for `If-Match`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateMonitor,
      success: Monitor.json.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Create a monitor",
        "Requires `componentId` (an existing component, else **404**), `type` and `url`, the target: `http` an " +
          "`http://` or `https://` URL; `tcp` `tcp://host:port` or `host:port` (stored as `tcp://host:port`); " +
          "`ssl_expiry` `https://host` or `https://host:port` (no path); `dns` a host name such as `example.com` " +
          "or `dns://example.com` (stored as the bare name; no port, path or address); `icmp` a host name or an IP " +
          "address (stored bare); `grpc` `grpc://host:port` or `grpcs://host:port`; `postgres` " +
          "`postgres://[user@]host[:port][/database]`; `mysql` `mysql://[user@]host[:port][/database]`; `redis` " +
          "`redis://[user@]host[:port][/db]` or `rediss://`; `mqtt` `mqtt://[user@]host[:port]` or `mqtts://`; " +
          "`amqp` `amqp://[user@]host[:port][/vhost]` or `amqps://`. A password in the URL is 400: it goes in " +
          "`password`.",
        "Bounds and defaults: `intervalSeconds` 10–86400 (60); `timeoutMs` 100–60000 and shorter than the " +
          "interval (10000, or half the interval when that is shorter); `failureThreshold` 1–10 (3); `regions` a " +
          "non-empty list of at most 20 distinct region names such as `eu-west` (`a-z0-9_-`, at most 63 " +
          "characters), or null (the default) for every region with a live probe; `quorum` `\"majority\"` (the " +
          "default), `\"any\"`, `\"all\"` or an integer k 1–1000, at most the number of `regions`; " +
          "`degradedAboveMs` 1–60000 or null (the default: never degraded).",
        "`http` only: `method` `GET` (default), `HEAD` or `POST`; `headers` an object of at most 20 names to " +
          "values (names are HTTP tokens, values at most 1024 characters without CR or LF; `Host`, " +
          "`Content-Length`, `Transfer-Encoding` and `Connection` are refused), answered as `\"********\"`; `body` " +
          "up to 65536 characters, with `POST` only; `expectedStatusCodes` 1–20 codes (`\"204\"`) or ranges " +
          "(`\"200-299\"`) within 100–599 (default `[\"200\"]`), or the single `expectedStatusCode` 100–599, not " +
          "both; `bodyContains` and `bodyNotContains` 1–1024 characters, looked for in the first 1 MB of the body " +
          "(not with `HEAD`); `assertions` 1–20 `{ path, op, value }` checked on the first 1 MB of the body as JSON " +
          "(path a JSON Pointer or a `$`-JSONPath of `.name`, `['name']` and `[index]` steps; op `==`, `!=`, `<`, " +
          "`>`, `contains`, `matches`, `exists`; value a JSON scalar, a number for `<` and `>`, a pattern for " +
          "`matches`, none, true or false for `exists`), or null (not with `HEAD`). `dns` only: `dnsRecordType` `A` (default), `AAAA`, `CNAME`, `MX`, `TXT` or `NS`; " +
          "`dnsExpectedValues` 1–20 values that must all be among the answers, or null. `postgres`, `mysql`, " +
          "`redis`, `mqtt`, `amqp` only: `password` (at most 1024 characters, or null), answered as " +
          "`\"********\"`; an update sending `\"********\"` keeps it, null or `\"\"` clears it. `grpc` only: " +
          "`grpcService` (at most 256 characters; null or `\"\"`: the server's health). `icmp` only: `pingCount` " +
          "1–10 (3).",
        "`push` (a heartbeat: the job it watches calls its URL) takes no `url`, `regions` or `quorum`: the " +
          "answer to its creation carries `pushToken`, shown this once (only its hash is stored; `POST " +
          "…/:id/push-token` makes a new one), and its URL is `/api/v1/push/<pushToken>`. `pushToken` may be " +
          "given (8–128 of `A-Za-z0-9_-`) to keep one another tool made. `graceSeconds` 0 to the interval " +
          "(30, or the interval when shorter): how late a push may come. `failureThreshold` defaults to 1.",
        "Automatic incidents: `incidentPolicy` `\"off\"` (default), `\"draft\"` or `\"publish\"` opens an " +
          "incident when quorum finds the monitor down; `incidentTemplateId` an incident template's id (unknown: " +
          "**404**) or null gives its title, message and severity; `resolveAfterSeconds` 0–86400 (300) is how long " +
          "the monitor stays up before that incident is resolved.",
        "Rules across fields (target and type, time-out within the interval, fields of another type, body " +
          "without `POST`, quorum above the regions, header names, repeated regions, assertions with `HEAD`) " +
          "answer 400 `BadRequest` " +
          "with `issues` naming the field.",
        "Answers **201**. The scheduler picks a new monitor up within about 5 s and checks it at once."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: MonitorPath,
      payload: UpdateMonitor,
      success: Monitor.json,
      error: [BadRequest, NotFound]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Change a monitor",
        "A partial update with the rules of creation, checked on the result. Changing `type` resets the fields " +
          "of a type to the new type's defaults (`http`: `GET`, `[\"200\"]`, no headers, body or body texts; `dns`: " +
          "`A`; null for the others). `headers` replaces the whole set: a name sent with `\"********\"` keeps its " +
          "stored value, a name left out is removed, null removes them all. Setting `expectedStatusCode` sets " +
          "`expectedStatusCodes` to that one code; answers carry `expectedStatusCode` only while the list is one " +
          "single code (else null). `password` follows the rules of a header value: `\"********\"` keeps the " +
          "stored one. A change of type to `push` makes its token, answered as `pushToken` this once; a change " +
          "from `push` needs a `url`. An unknown monitor or `componentId` is 404.",
        "Moving a monitor to another component ends its open down interval on the old one (its earlier downtime " +
          "stays in the uptime history), opens one on the new one while it is still down, and decides both " +
          "components' status again from their monitors (`component.status_changed` when one changes)."
      ))
  )
  .add(
    HttpApiEndpoint.get("results", "/:id/results", {
      params: MonitorPath,
      query: pageQueryFields(runsPageBounds),
      success: Schema.Array(MonitorRun),
      error: NotFound
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Recent runs of a monitor",
        "The runs of every region together, newest first (then by region): stored checks " +
          "(`outcome: \"checked\"`, with `ok`, `statusCode`, `error` and the timing phases) and misses " +
          "(`outcome: \"missed\"`, with `region`, `probe`, `scheduledAt`, `recordedAt` and `reason`: `\"late\"`, a run " +
          "its region's probe took more than one interval late and did not run, or `\"scheduler-away\"`, a run no " +
          "scheduler published, recorded with `probe` `\"(scheduler)\"` by the scheduler that took over or caught up; " +
          "a result that still arrives replaces its miss). A miss is no data: it changes neither state nor " +
          "uptime. Raw runs are kept `RESULTS_RETENTION_DAYS` (7 by default). An unknown id is 404.",
        pagedList(runsPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.post("pause", "/:id/pause", { params: MonitorPath, success: Monitor.json, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Pause a monitor",
        "Answers the monitor with `paused: true` and `state: \"unknown\"`. The scheduler stops checking it within " +
          "about 5 s and results still in flight are ignored. Its open down interval ends now (paused time is no " +
          "data, not downtime), what its regions last found is forgotten, and its component's status is decided " +
          "again from its other monitors. Pausing a paused monitor changes nothing. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("resume", "/:id/resume", { params: MonitorPath, success: Monitor.json, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Resume a monitor",
        "Answers the monitor with `paused: false`. The scheduler checks it again from its next slot; its state " +
          "stays `unknown` until its regions have reported. Resuming a running monitor changes nothing. An " +
          "unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("rotatePushToken", "/:id/push-token", {
      params: MonitorPath,
      success: Monitor.json,
      error: [BadRequest, NotFound]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Rotate a push monitor's token",
        "Gives a push monitor a new token and answers the monitor with `pushToken`, the only time the new token " +
          "is shown (only its hash is stored). Pushes to `/api/v1/push/<old token>` are 404 from then on. A " +
          "monitor of another type is 400; an unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", { params: MonitorPath, success: HttpApiSchema.NoContent, error: NotFound })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Delete a monitor",
        "Answers **204**. The monitor's open down interval ends now (its earlier downtime stays in the uptime " +
          "history) and its component's status is decided again from the remaining monitors: a component left " +
          "without monitors goes back to `operational` if monitors had set its status. An unknown id is 404."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/monitors")
  .annotateMerge(groupDocs(
    "Checks of a component's target run by the probe fleet (admin; an API key or a session is required, else " +
      "401).",
    "Every region checks every monitor (or only the regions in its `regions`). A monitor goes **down** when at " +
      "least `failureThreshold` consecutive failures happened in a quorum of its reporting regions (checked " +
      "within the last two intervals, probes not offline): by default a majority, or as its `quorum` says. It is " +
      "**up** again when enough of them last succeeded, and **degraded** when a quorum of them last succeeded " +
      "slower than `degradedAboveMs`.",
    "A component whose monitors are all down shows `major_outage`, some `partial_outage`; else any degraded " +
      "`degraded`; else `operational`. " +
      "Monitors only move a status they set themselves or an `operational` one: a status an operator set by " +
      "hand, and `maintenance`, are left alone. Each change writes `component.status_changed` to the outbox. " +
      "Deleting a component deletes its monitors."
  ))
{}
