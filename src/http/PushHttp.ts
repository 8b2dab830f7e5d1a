import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { PushAccepted } from "../api/PushApi.js"
import { maxReportedMs } from "../domain/CheckJob.js"
import { BadRequest } from "../domain/Errors.js"
import { type Push, PushReceiver } from "../services/monitoring/PushReceiver.js"
import { withRetryAfter } from "./RetryAfter.js"

const accepted = new PushAccepted({ ok: true })

/**
 * Uptime Kuma's parameters, checked: `status` up or down, `ping` a number of ms. An empty value is
 * absent (Kuma's own example URL ends `&ping=`).
 */
const pushOf = (query: { status?: string; msg?: string; ping?: string }): Effect.Effect<Push, BadRequest> => {
  const status = query.status === undefined || query.status === "" ? "up" : query.status
  const ping = query.ping === undefined || query.ping.trim() === "" ? undefined : Number(query.ping)
  const issues = [
    ...(status === "up" || status === "down" ? [] : [{ path: ["status"], message: "must be up or down" }]),
    ...(ping === undefined || (Number.isFinite(ping) && ping >= 0 && ping <= maxReportedMs)
      ? []
      : [{ path: ["ping"], message: `must be a number of milliseconds, 0-${maxReportedMs}` }])
  ]
  return issues.length > 0
    ? BadRequest.fromIssues(issues)
    : Effect.succeed({ status: status as Push["status"], msg: query.msg, ping })
}

export const PushHttp = HttpApiBuilder.group(Api, "push", (handlers) =>
  Effect.gen(function*() {
    const receiver = yield* PushReceiver
    const receive = ({ params, query }: { params: { pushToken: string }; query: Parameters<typeof pushOf>[0] }) =>
      pushOf(query).pipe(
        Effect.flatMap((push) => receiver.receive(params.pushToken, push)),
        Effect.as(accepted),
        withRetryAfter
      )
    return handlers.handle("get", receive).handle("post", receive)
  }))
