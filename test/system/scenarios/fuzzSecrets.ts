/**
 * What the fuzzer needs from the test bed so that every operation can succeed: an
 * administrator's credentials (the first administrator, given a new password with the CLI, as
 * an operator would: docs/authentication.md), and the mail the SMTP capture received for the
 * fuzzer's `fuzz-…@example.com` subscribers, whose links carry the verify and unsubscribe tokens.
 *
 * Unsubscribe links reach only confirmed subscribers, in the mail of an event: left to the run,
 * they depend on one of its random addresses being confirmed before one of its incidents, and a
 * run once offered six in 20,000 requests and had no unsubscribe succeed. So some addresses are
 * subscribed and confirmed before the run, as people would; the run's incidents mail them.
 */
import { randomBytes } from "node:crypto"
import { request } from "node:http"

import { runCommand } from "../../support/ChildProcess.js"
import { adminUrl } from "../../support/TestDatabase.js"
import { isFuzzAddress } from "../fuzz/secrets.js"
import { until } from "../Processes.js"
import type { TestBed } from "../TestBed.js"

const confirmedBeforeTheRun = 16
/** Their own client address: subscribing is limited to 20 an hour per client address. */
const subscribersAddress = "127.77.0.9"
const verifyLink = /\/subscribe\/verify\/([^\s"<>]+)/

/** A public request from `subscribersAddress`; its status. */
const publicRequest = (baseUrl: string, method: string, path: string, body?: unknown) =>
  new Promise<number>((resolve, reject) => {
    const outgoing = request(`${baseUrl}${path}`, {
      method,
      localAddress: subscribersAddress,
      headers: body === undefined ? {} : { "content-type": "application/json" }
    }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
    })
    outgoing.on("error", reject)
    outgoing.end(body === undefined ? undefined : JSON.stringify(body))
  })

/** Subscribes `count` fuzzer addresses to every component and follows their confirmation links. */
const confirmSubscribers = async (bed: TestBed, count: number) => {
  const baseUrl = bed.apis[0].baseUrl
  const emails = Array.from({ length: count }, (_, i) => `fuzz-confirmed-${i}@example.com`)
  for (const email of emails) {
    const status = await publicRequest(baseUrl, "POST", "/api/v1/subscribe", { email })
    if (status !== 202) throw new Error(`subscribing ${email} answered ${status}`)
  }
  const confirmationOf = (email: string) =>
    bed.smtp.messages.find((mail) => mail.envelopeTo.includes(email) && verifyLink.test(mail.parsed.text ?? ""))
  await until("the confirmation mails", () => emails.every((email) => confirmationOf(email) !== undefined), 30_000)
  for (const email of emails) {
    const token = verifyLink.exec(confirmationOf(email)!.parsed.text ?? "")![1]!
    const status = await publicRequest(baseUrl, "GET", `/api/v1/subscribe/verify/${token}`)
    if (status !== 200) throw new Error(`confirming ${email} answered ${status}`)
  }
  return new Set(emails)
}

/**
 * A push monitor for the run, on a component of its own the fuzzer does not know (so it never
 * deletes it): a push needs a token, shown only when it is made. `remove` deletes both after it.
 */
const pushMonitorForTheRun = async (bed: TestBed) => {
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${bed.apis[0].baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${bed.apiKey}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
    return response.status === 204 ? undefined : await response.json()
  }
  const component = await api("POST", "/api/v1/admin/components", { name: "Fuzz push", isPublic: false })
  const monitor = await api("POST", "/api/v1/admin/monitors", { componentId: component.id, type: "push" })
  return {
    id: monitor.id as string,
    token: monitor.pushToken as string,
    remove: () => api("DELETE", `/api/v1/admin/components/${component.id}`).then(() => undefined)
  }
}

export const fuzzSecrets = async (bed: TestBed) => {
  const first = await bed.sql.query<{ email: string }>("select email from users order by created_at limit 1")
  const email = first.rows[0]?.email
  if (email === undefined) throw new Error("the test bed has no administrator")
  const password = randomBytes(18).toString("base64url")
  const url = new URL(adminUrl)
  url.pathname = `/${bed.databaseName}`
  const reset = await runCommand(
    "src/cli/main.ts",
    ["admin", "reset-password", "--email", email, "--password-stdin"],
    { DATABASE_URL: url.toString() },
    { stdin: password }
  )
  if (reset.code !== 0) throw new Error(`resetting the administrator's password failed: ${reset.stderr}`)
  const confirmed = await confirmSubscribers(bed, confirmedBeforeTheRun)
  const push = await pushMonitorForTheRun(bed)
  return {
    signIn: { email, password },
    pushTokens: [push.token],
    pushMonitorIds: [push.id],
    removePushMonitor: push.remove,
    // Their confirmation links are used: offered to the run, they could only fail.
    mailbox: () =>
      bed.smtp.messages.filter((mail) =>
        mail.envelopeTo.some(isFuzzAddress) &&
        !(mail.envelopeTo.some((to) => confirmed.has(to)) && verifyLink.test(mail.parsed.text ?? ""))
      ).map((mail) => mail.parsed.text ?? "")
  }
}
