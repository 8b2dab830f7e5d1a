/**
 * The team's suites: the test server with the first administrator, mail going to a real SMTP
 * capture, and X-Forwarded-For believed from loopback so each test can act from its own client
 * address (the per-client limits of invitation links and sign-ins stay apart). Helpers invite,
 * read the link out of the mail, accept and sign in over HTTP.
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

import type { Role } from "../../src/domain/Role.js"
import { adminVariables, parseSetCookies } from "../support/Auth.js"
import { publicUrl, Smtp } from "../support/MailStack.js"
import { smtpCapture } from "../support/SmtpCapture.js"
import { sendAnonymous, sendJson, TestServer } from "../support/TestServer.js"

/** `TestServer` with the first administrator and SMTP, plus `layer` (the dispatcher, or nothing) on it. */
export const teamServer = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.unwrap(
    Effect.map(smtpCapture, (smtp) =>
      layer.pipe(
        Layer.provideMerge(TestServer({
          ...adminVariables,
          SMTP_URL: smtp.url,
          MAIL_FROM: "status@example.test",
          PUBLIC_URL: publicUrl,
          TRUST_PROXY: "127.0.0.1"
        })),
        Layer.merge(Layer.succeed(Smtp, smtp))
      ))
  )

export const TeamServer = teamServer(Layer.empty)

/** Headers of a request from client `address`. */
export const from = (address: string, headers: Record<string, string> = {}) => ({
  "x-forwarded-for": address,
  ...headers
})

export const linkPattern = new RegExp(`${publicUrl.replace(/[.]/g, "\\.")}/admin/invitation#([A-Za-z0-9_-]+)`)

/** The mails that reached `email`. */
export const mailsTo = (email: string) =>
  Effect.map(Smtp, (smtp) => smtp.messages.filter((mail) => mail.envelopeTo.includes(email)))

/** Waits (real time) until `count` mails reached `email`, and returns them. */
export const waitForMails = (email: string, count: number) =>
  Effect.gen(function*() {
    const smtp = yield* Smtp
    for (let i = 0; i < 250; i++) {
      const mails = yield* mailsTo(email)
      if (mails.length >= count) return mails
      yield* smtp.waitFor(smtp.messages.length + 1, 20)
    }
    return yield* mailsTo(email)
  })

/** The token of the link in the `index`-th mail to `email` (waiting for it). */
export const tokenFromMail = (email: string, index = 0) =>
  Effect.map(waitForMails(email, index + 1), (mails) => {
    const token = linkPattern.exec(mails[index]?.parsed.text ?? "")?.[1]
    if (token === undefined) throw new Error(`no invitation link in mail ${index} to ${email}`)
    return token
  })

/** Invites `email` as `role` with the suite's owner key. */
export const invite = (email: string, role: Role) => sendJson("POST", "/api/v1/admin/invitations", { email, role })

export const inspect = (token: unknown, client: string) =>
  sendAnonymous("POST", "/api/v1/auth/invitations/inspect", { token }, from(client))

export const accept = (body: Record<string, unknown>, client: string, headers: Record<string, string> = {}) =>
  Effect.map(
    sendAnonymous("POST", "/api/v1/auth/invitations/accept", body, from(client, headers)),
    (response) => ({ ...response, cookies: parseSetCookies(response.headers["set-cookie"]) })
  )

/** The `Cookie` header of the session a response set. */
export const sessionOf = (response: { readonly cookies: ReturnType<typeof parseSetCookies> }) => {
  const cookie = response.cookies.find(({ name }) => name === "__Host-session")
  if (cookie === undefined) throw new Error("no session cookie")
  return `__Host-session=${cookie.value}`
}

export const signInAs = (email: string, password: string, client: string, headers: Record<string, string> = {}) =>
  Effect.map(
    sendAnonymous("POST", "/api/v1/auth/signin", { email, password }, from(client, headers)),
    (response) => ({ ...response, cookies: parseSetCookies(response.headers["set-cookie"]) })
  )

/** A request with a session cookie, from `client`. */
export const withSession = (
  cookie: string,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  body?: unknown,
  client = "192.0.2.1"
) => sendAnonymous(method, url, body, from(client, { cookie }))

/**
 * A member of the team made the real way: invited as `role`, the link read from the mail,
 * accepted with a name and `password`. Returns their id and the session the acceptance started.
 */
export const addMember = (email: string, role: Role, password: string, client: string) =>
  Effect.gen(function*() {
    const before = (yield* mailsTo(email)).length
    const invited = yield* invite(email, role)
    if (invited.status !== 201) throw new Error(`invite answered ${invited.status}: ${JSON.stringify(invited.body)}`)
    const token = yield* tokenFromMail(email, before)
    const accepted = yield* accept({ token, name: `Member ${email}`, password }, client)
    if (accepted.status !== 200) throw new Error(`accept answered ${accepted.status}: ${JSON.stringify(accepted.body)}`)
    return { id: accepted.body.user.id as string, cookie: sessionOf(accepted) }
  })

/** The audit entries of `operation` about target `targetId`, oldest first. */
export const auditEntries = (operation: string, targetId?: string | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      actorType: string
      actorId: string | null
      actorName: string
      clientAddress: string | null
      targetType: string
      targetId: string | null
      targetName: string | null
      changes: Record<string, { before: unknown; after: unknown }>
    }>`
      select actor_type, actor_id, actor_name, client_address, target_type, target_id, target_name, changes
      from audit_log
      where operation = ${operation}
        and (${targetId === undefined} or target_id is not distinct from ${targetId ?? null})
      order by at, id`)
