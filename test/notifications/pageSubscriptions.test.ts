/**
 * Subscriptions to status pages end to end, with the dispatcher and a real SMTP server: an
 * address subscribes to two pages (one subscription each, in its own language), gets one mail per
 * page that shows an incident, each in that page's name and with its address, and an incident
 * naming no component reaches only the default page's subscribers. The pages are written by SQL,
 * as the admin API of pages would.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

import { pageAddress } from "../../src/domain/StatusPage.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { eventually, realPause } from "../support/Eventually.js"
import { publicUrl, Smtp, withSmtp } from "../support/MailStack.js"
import type { CapturedMail } from "../support/SmtpCapture.js"
import { sendJson } from "../support/TestServer.js"

const post = (path: string, body: unknown) =>
  sendJson("POST", path, body).pipe(
    Effect.tap((response) =>
      Effect.sync(() => expect(response.status, JSON.stringify(response.body)).toBeLessThan(300))
    )
  )

const createComponent = (name: string, groupId?: string) =>
  Effect.map(
    post("/api/v1/admin/components", groupId === undefined ? { name } : { name, groupId }),
    (r) => r.body.id as string
  )

const mailsTo = (smtp: { readonly messages: ReadonlyArray<CapturedMail> }, email: string) =>
  smtp.messages.filter((mail) => mail.envelopeTo.includes(email))

const escaped = (text: string) => text.replace(/[.?]/g, "\\$&")

/** Subscribes through the public API, then confirms with the link of the confirmation mail of `pageUrl`. */
const subscribeVerified = (body: Record<string, unknown>, pageUrl: string) =>
  Effect.gen(function*() {
    const smtp = yield* Smtp
    const email = body.email as string
    const before = mailsTo(smtp, email).length
    yield* post("/api/v1/subscribe", body)
    const mails = yield* eventually(Effect.sync(() => mailsTo(smtp, email)), (mails) => mails.length > before)
    const text = mails[before]!.parsed.text ?? ""
    // The confirmation link is on the page subscribed to.
    const token = new RegExp(`${escaped(pageUrl)}/subscribe/verify/([A-Za-z0-9_-]+)`).exec(text)![1]!
    expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)
  })

interface Listed {
  readonly email: string
  readonly pageId: string
  readonly locale: string
  readonly verified: boolean
  readonly componentIds: ReadonlyArray<string> | null
}
const listed = (email: string) =>
  Effect.map(
    sendJson("GET", "/api/v1/admin/subscribers"),
    (r) => (r.body as Array<Listed>).filter((s) => s.email === email)
  )

it.layer(withSmtp(Dispatcher))("subscriptions to status pages", (it) => {
  it.effect("one mail per page that shows the incident, in the page's name, at its address", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const sql = yield* SqlClient.SqlClient
      const group = yield* post("/api/v1/admin/component-groups", { name: "Partner services" })
      const shared = yield* createComponent("Shared API", group.body.id as string)
      const partnerOnly = yield* createComponent("Partner portal", group.body.id as string)
      const elsewhere = yield* createComponent("Elsewhere")

      // Customers: the shared component, on a domain of its own. Partners: the group (both
      // components), in German, under its own title. The default page shows every component.
      const [customers] = yield* sql<{ id: string }>`
        insert into status_pages (slug, domain, all_components) values ('customers', 'status.customers.test', false)
        returning id`
      const [partners] = yield* sql<{ id: string }>`
        insert into status_pages (slug, title, locale, languages, all_components)
        values ('partners', 'Partner status', 'de', '{de,en}', false) returning id`
      yield* sql`
        insert into status_page_items (page_id, position, component_id) values (${customers!.id}, 0, ${shared})`
      yield* sql`
        insert into status_page_items (page_id, position, group_id) values (${partners!.id}, 0, ${group.body.id})`
      const [defaultPage] = yield* sql<{ id: string }>`select id from status_pages where is_default`
      const customersUrl = "https://status.customers.test"
      const partnersUrl = `${publicUrl}/p/partners`
      expect(pageAddress(publicUrl, { isDefault: false, domain: "status.customers.test", slug: "customers" }))
        .toBe(customersUrl)
      expect(pageAddress(publicUrl, { isDefault: false, domain: null, slug: "partners" })).toBe(partnersUrl)
      expect(pageAddress(publicUrl, { isDefault: true, domain: null, slug: "default" })).toBe(publicUrl)

      // One address, two pages: the partners' subscription takes that page's language.
      yield* subscribeVerified({ email: "reader@example.test", page: "customers" }, customersUrl)
      yield* subscribeVerified({ email: "reader@example.test", page: "partners" }, partnersUrl)
      yield* subscribeVerified({ email: "everyone@example.test" }, publicUrl)
      // A German reader of the customers' page (English by default).
      yield* subscribeVerified({ email: "leser@example.test", page: "customers", locale: "de" }, customersUrl)
      expect(
        (yield* listed("reader@example.test")).map(({ locale, pageId, verified }) => ({ pageId, locale, verified }))
      )
        .toEqual(expect.arrayContaining([
          { pageId: customers!.id, locale: "en", verified: true },
          { pageId: partners!.id, locale: "de", verified: true }
        ]))
      expect(yield* listed("everyone@example.test")).toMatchObject([{ pageId: defaultPage!.id, locale: "en" }])
      expect(yield* listed("leser@example.test")).toMatchObject([{ pageId: customers!.id, locale: "de" }])

      yield* post("/api/v1/admin/incidents", { title: "Shared API errors", message: "m", componentIds: [shared] })
      yield* post("/api/v1/admin/incidents", { title: "Portal slow", message: "m", componentIds: [partnerOnly] })
      yield* post("/api/v1/admin/incidents", { title: "Elsewhere down", message: "m", componentIds: [elsewhere] })
      yield* post("/api/v1/admin/incidents", { title: "Everything slow", message: "m" })

      const notifications = (email: string) => mailsTo(smtp, email).filter((mail) => !/verify/.test(mail.parsed.text!))
      const expected: Record<string, number> = {
        "reader@example.test": 3,
        "everyone@example.test": 4,
        "leser@example.test": 1
      }
      yield* eventually(
        Effect.sync(() => Object.keys(expected).map((email) => notifications(email).length)),
        (counts) => counts.every((count, i) => count >= expected[Object.keys(expected)[i]!]!)
      )
      // Anything extra would have been sent with the rest.
      yield* realPause(500)
      const seen = (email: string) =>
        notifications(email).map((mail) => {
          const text = mail.parsed.text ?? ""
          const page = text.includes(`${customersUrl}/subscription?`)
            ? "customers"
            : text.includes(`${partnersUrl}/subscription?`)
            ? "partners"
            : text.includes(`${publicUrl}/subscription?`)
            ? "default"
            : "?"
          return `${page}: ${
            /(Shared API errors|Portal slow|Elsewhere down|Everything slow)/.exec(mail.parsed.subject!)?.[1]
          }`
        }).toSorted()
      // Shown by both of its pages: one mail each. Only the partners': theirs. No component: only the default page's.
      expect(seen("reader@example.test")).toEqual(
        ["customers: Shared API errors", "partners: Shared API errors", "partners: Portal slow"].toSorted()
      )
      expect(seen("everyone@example.test")).toEqual(
        ["default: Shared API errors", "default: Portal slow", "default: Elsewhere down", "default: Everything slow"]
          .toSorted()
      )
      expect(seen("leser@example.test")).toEqual(["customers: Shared API errors"])

      // Each mail speaks for its page: the partners' under their title, the others under the organization's.
      const subjects = notifications("reader@example.test").map((mail) => mail.parsed.subject!)
      expect(subjects.filter((subject) => subject.startsWith("[Partner status]"))).toHaveLength(2)
      expect(subjects.filter((subject) => subject.startsWith("[Status]"))).toHaveLength(1)

      // Each mail is in the language of its subscription: the partners' page's German for the reader
      // there, English on the customers' page, and German for the reader who chose it there.
      const bodies = (email: string, page: string) =>
        notifications(email).map((mail) => mail.parsed.text ?? "").filter((text) =>
          text.includes(`${page}/subscription?`)
        )
      expect(bodies("reader@example.test", partnersUrl)).toEqual([
        expect.stringContaining("Abmelden: "),
        expect.stringContaining("Abmelden: ")
      ])
      expect(bodies("reader@example.test", customersUrl)).toEqual([expect.stringContaining("Unsubscribe: ")])
      expect(bodies("leser@example.test", customersUrl)).toEqual([expect.stringContaining("Abmelden: ")])
      expect(notifications("leser@example.test")[0]!.parsed.subject).toBe("[Status] Neuer Vorfall: Shared API errors")
      expect(mailsTo(smtp, "leser@example.test")[0]!.parsed.subject).toContain("Bestätigen Sie Ihr Abonnement")
      // One-click unsubscribing is the API's, which answers at PUBLIC_URL whatever the page's address.
      const oneClick = notifications("leser@example.test")[0]!.parsed.headerLines
        .find((line) => line.key === "list-unsubscribe")?.line.replace(/\r\n\s+/g, "")
      expect(oneClick).toContain(`<${publicUrl}/api/v1/unsubscribe/one-click?email=leser%40example.test&token=`)

      // Stored per subscription: the customers' page's two readers, each with its own language.
      const rows = yield* sql<{ email: string; locale: string; events: number }>`
        select s.email, s.locale, count(m.id)::int as events from subscribers s
        join mail_deliveries m on m.subscriber_id = s.id and m.kind = 'notification'
        where s.page_id = ${customers!.id} group by s.email, s.locale order by s.email`
      expect(rows).toEqual([
        { email: "leser@example.test", locale: "de", events: 1 },
        { email: "reader@example.test", locale: "en", events: 1 }
      ])
    }))

  it.effect("a page's subscription takes only its components; unknown and protected pages are 404", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const shown = yield* createComponent("Shown")
      const notShown = yield* createComponent("Not shown")
      const [narrow] = yield* sql<{ id: string }>`
        insert into status_pages (slug, all_components) values ('narrow', false) returning id`
      yield* sql`insert into status_page_items (page_id, position, component_id) values (${narrow!.id}, 0, ${shown})`
      yield* sql`
        insert into status_pages (slug, audience, password_hash) values ('private-one', 'protected', 'scrypt$x')`

      // A public component the page does not show is answered as an unknown one.
      const refused = yield* sendJson("POST", "/api/v1/subscribe", {
        email: "narrow@example.test",
        page: "narrow",
        componentIds: [shown, notShown]
      })
      expect(refused.status).toBe(400)
      expect(refused.body.issues).toEqual([{ path: ["componentIds", 1], message: `unknown component "${notShown}"` }])
      // The default page shows it.
      yield* post("/api/v1/subscribe", { email: "narrow@example.test", componentIds: [notShown] })
      yield* post("/api/v1/subscribe", { email: "narrow@example.test", page: "narrow", componentIds: [shown] })
      const subscriptions = yield* listed("narrow@example.test")
      expect(subscriptions.map((s) => s.componentIds)).toEqual(expect.arrayContaining([[shown], [notShown]]))
      expect(subscriptions).toHaveLength(2)

      // A private group a page lists is not shown there (nor anywhere), its components neither.
      const hiddenGroup = yield* post("/api/v1/admin/component-groups", { name: "Internal", isPublic: false })
      const inHiddenGroup = yield* createComponent("Behind a private group", hiddenGroup.body.id as string)
      yield* sql`
        insert into status_page_items (page_id, position, group_id) values (${narrow!.id}, 1, ${hiddenGroup.body.id})`
      const ofHiddenGroup = yield* sendJson("POST", "/api/v1/subscribe", {
        email: "narrow@example.test",
        page: "narrow",
        componentIds: [inHiddenGroup]
      })
      expect(ofHiddenGroup.status).toBe(400)
      expect(ofHiddenGroup.body.issues).toEqual([
        { path: ["componentIds", 0], message: `unknown component "${inHiddenGroup}"` }
      ])

      // Nothing tells a protected page from a page that does not exist.
      const unknown = yield* sendJson("POST", "/api/v1/subscribe", { email: "x@example.test", page: "no-such-page" })
      const hidden = yield* sendJson("POST", "/api/v1/subscribe", { email: "x@example.test", page: "private-one" })
      expect(unknown.status).toBe(404)
      expect(hidden.status).toBe(404)
      expect(hidden.body).toEqual(unknown.body)
      expect(unknown.body).toMatchObject({ _tag: "NotFound" })
      for (const body of [{ page: "Not A Slug" }, { page: 42 }, { locale: "xx" }, { locale: "de-AT" }]) {
        const bad = yield* sendJson("POST", "/api/v1/subscribe", { email: "x@example.test", ...body })
        expect(bad.status, JSON.stringify(body)).toBe(400)
        expect(bad.body._tag).toBe("HttpApiDecodeError")
        expect(bad.body.issues[0].path).toEqual([Object.keys(body)[0]])
      }
      expect(yield* listed("x@example.test")).toEqual([])
    }))
})
