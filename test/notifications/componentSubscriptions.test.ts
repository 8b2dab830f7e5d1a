/**
 * Per-component subscriptions end to end, with the dispatcher and a real SMTP server: who is
 * mailed about what, the choice a subscription request stores, and the preferences page every
 * notification mail links to (its GET changes nothing; its POST changes the components or
 * unsubscribes, and a wrong token changes nothing).
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"

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

const createComponent = (name: string, isPublic = true) =>
  Effect.map(post("/api/v1/admin/components", { name, isPublic }), (r) => r.body.id as string)

const mailsTo = (smtp: { readonly messages: ReadonlyArray<CapturedMail> }, email: string) =>
  smtp.messages.filter((mail) => mail.envelopeTo.includes(email))

/** Subscribes `email` to `componentIds` and confirms through the link of the mail. */
const subscribeVerified = (email: string, componentIds?: ReadonlyArray<string> | null) =>
  Effect.gen(function*() {
    const smtp = yield* Smtp
    yield* post("/api/v1/subscribe", componentIds === undefined ? { email } : { email, componentIds })
    const [mail] = yield* eventually(Effect.sync(() => mailsTo(smtp, email)), (mails) => mails.length >= 1)
    const token = /\/subscribe\/verify\/([A-Za-z0-9_-]+)/.exec(mail!.parsed.text ?? "")![1]!
    expect((yield* sendJson("GET", `/api/v1/subscribe/verify/${token}`)).status).toBe(200)
  })

/** The admin list's entry of `email`. */
const listed = (email: string) =>
  Effect.map(
    sendJson("GET", "/api/v1/admin/subscribers"),
    (r) =>
      (r.body as Array<{ email: string; componentIds: ReadonlyArray<string> | null }>).find((s) => s.email === email)
  )

/** Sends a form as the page's `<form method="post">` does; answers status and HTML. */
const postForm = (path: string, fields: ReadonlyArray<readonly [string, string]>, headers = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyText(
          new URLSearchParams(fields.map(([name, value]) => [name, value])).toString(),
          "application/x-www-form-urlencoded"
        )
      )
    )
    return { status: response.status, html: yield* response.text }
  }).pipe(Effect.scoped)

const getPage = (path: string) => Effect.map(sendJson("GET", path), (r) => ({ status: r.status, html: String(r.body) }))

it.layer(withSmtp(Dispatcher))("per-component subscriptions", (it) => {
  it.effect("a subscriber hears about its components, items naming no public component, and nothing else", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const api = yield* createComponent("API")
      const billing = yield* createComponent("Billing")
      const internal = yield* createComponent("Internal batch", false)
      yield* subscribeVerified("api-only@example.test", [api])
      yield* subscribeVerified("billing-only@example.test", [billing])
      yield* subscribeVerified("everything@example.test")
      // Both: one mail per item, not one per component.
      yield* subscribeVerified("both@example.test", [api, billing, api])
      expect(yield* listed("both@example.test")).toMatchObject({ componentIds: expect.arrayContaining([api, billing]) })
      expect((yield* listed("both@example.test"))!.componentIds).toHaveLength(2)

      yield* post("/api/v1/admin/incidents", { title: "API errors", message: "m", componentIds: [api] })
      yield* post("/api/v1/admin/incidents", { title: "Billing delays", message: "m", componentIds: [billing] })
      yield* post("/api/v1/admin/incidents", { title: "Everything slow", message: "m" })
      // Its private component is no one's choice: for subscribers it names API only.
      yield* post("/api/v1/admin/incidents", { title: "API and batch", message: "m", componentIds: [api, internal] })
      // On a private component only: the public never sees it, nobody is mailed.
      yield* post("/api/v1/admin/incidents", { title: "Batch late", message: "m", componentIds: [internal] })
      yield* post("/api/v1/admin/maintenance", {
        title: "Billing upgrade",
        scheduledStart: "2031-05-01T22:00:00.000Z",
        scheduledEnd: "2031-05-02T01:00:00.000Z",
        componentIds: [billing]
      })

      const expected: Record<string, ReadonlyArray<string>> = {
        "api-only@example.test": ["API errors", "Everything slow", "API and batch"],
        "billing-only@example.test": ["Billing delays", "Everything slow", "Billing upgrade"],
        "everything@example.test": [
          "API errors",
          "Billing delays",
          "Everything slow",
          "API and batch",
          "Billing upgrade"
        ],
        "both@example.test": ["API errors", "Billing delays", "Everything slow", "API and batch", "Billing upgrade"]
      }
      const subjects = (email: string) =>
        mailsTo(smtp, email).slice(1).map((mail) => mail.parsed.subject!.replace(/^\[Status\] [^:]+: /, ""))
      yield* eventually(
        Effect.sync(() => Object.keys(expected).map(subjects)),
        (lists) => lists.every((list, i) => list.length >= expected[Object.keys(expected)[i]!]!.length)
      )
      // Anything extra would have been sent with the rest.
      yield* realPause(500)
      for (const [email, titles] of Object.entries(expected)) {
        expect(subjects(email).toSorted(), email).toEqual(titles.toSorted())
      }

      // Every notification links to the subscriber's preferences page.
      const text = mailsTo(smtp, "api-only@example.test")[1]!.parsed.text ?? ""
      expect(text).toMatch(
        new RegExp(`${publicUrl.replace(/\./g, "\\.")}/subscription\\?email=api-only%40example\\.test&token=[\\w-]+`)
      )
    }))

  it.effect("unknown and private components are 400 alike; a verified address keeps its choice", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const web = yield* createComponent("Web")
      const hidden = yield* createComponent("Hidden", false)

      for (
        const [componentIds, bad] of [
          [[web, "no-such-component"], ["no-such-component"]],
          [[hidden, web], [hidden]],
          [["no-such-component", hidden], ["no-such-component", hidden]]
        ] as const
      ) {
        const refused = yield* sendJson("POST", "/api/v1/subscribe", { email: "picky@example.test", componentIds })
        expect(refused.status).toBe(400)
        expect(refused.body._tag).toBe("BadRequest")
        // A private id is answered exactly as an unknown one.
        expect(refused.body.issues).toEqual(
          bad.map((id) => ({
            path: ["componentIds", componentIds.indexOf(id as never)],
            message: `unknown component "${id}"`
          }))
        )
      }
      const shapes: ReadonlyArray<unknown> = [
        Array.from({ length: 101 }, (_, i) => `c${i}`),
        "everything",
        [42],
        [""]
      ]
      for (const componentIds of shapes) {
        const refused = yield* sendJson("POST", "/api/v1/subscribe", { email: "picky@example.test", componentIds })
        expect(refused.status, JSON.stringify(componentIds)).toBe(400)
      }
      expect(yield* listed("picky@example.test")).toBeUndefined()
      expect(mailsTo(smtp, "picky@example.test")).toEqual([])

      // A pending address takes the choice of its latest request, which its latest link confirms.
      yield* post("/api/v1/subscribe", { email: "changing@example.test", componentIds: [web] })
      expect(yield* listed("changing@example.test")).toMatchObject({ componentIds: [web] })
      yield* post("/api/v1/subscribe", { email: "changing@example.test", componentIds: [] })
      expect(yield* listed("changing@example.test")).toMatchObject({ componentIds: null })

      // A verified one: the same 202, and neither its choice nor its mail changes.
      yield* subscribeVerified("settled@example.test", [web])
      const before = mailsTo(smtp, "settled@example.test").length
      yield* post("/api/v1/subscribe", { email: "settled@example.test", componentIds: null })
      yield* realPause(300)
      expect(yield* listed("settled@example.test")).toMatchObject({ componentIds: [web] })
      expect(mailsTo(smtp, "settled@example.test")).toHaveLength(before)
    }))

  it.effect("the preferences page: following the link changes nothing; its forms change or unsubscribe", () =>
    Effect.gen(function*() {
      const smtp = yield* Smtp
      const search = yield* createComponent("Search")
      const status = yield* createComponent("Status API")
      const secret = yield* createComponent("Secret", false)
      yield* subscribeVerified("reader@example.test", [search])
      yield* post("/api/v1/admin/incidents", { title: "Search down", message: "m", componentIds: [search] })
      const [, mail] = yield* eventually(
        Effect.sync(() => mailsTo(smtp, "reader@example.test")),
        (mails) => mails.length >= 2
      )
      const link = new URL(/https:\/\/\S+\/subscription\?\S+/.exec(mail!.parsed.text ?? "")![0])
      const email = link.searchParams.get("email")!
      const token = link.searchParams.get("token")!

      const page = yield* getPage(`${link.pathname}${link.search}`)
      expect(page.status).toBe(200)
      expect(page.html).toContain("<h1>Your subscription</h1>")
      expect(page.html).toMatch(new RegExp(`value="${search}" checked`))
      expect(page.html).toMatch(new RegExp(`value="${status}">`))
      expect(page.html).not.toContain(secret)
      expect(page.html).toContain(`<form method="post" action="/subscription"`)
      expect(yield* listed(email)).toMatchObject({ componentIds: [search] })

      for (
        const [path, code] of [
          [`/subscription?email=${encodeURIComponent(email)}&token=wrong`, 404],
          [`/subscription?email=someone-else%40example.test&token=${token}`, 404],
          [`/subscription?email=${encodeURIComponent(email)}`, 400],
          ["/subscription", 400]
        ] as const
      ) {
        const answer = yield* getPage(path)
        expect(answer.status, path).toBe(code)
        expect(answer.html, path).not.toContain("Save choices")
      }

      const pair = [["email", email], ["token", token]] as const
      const saved = yield* postForm("/subscription", [
        ...pair,
        ["componentIds", status],
        ["componentIds", search],
        ["action", "save"]
      ])
      expect(saved.status).toBe(200)
      expect(saved.html).toContain("Saved: you hear about Search, Status API")
      expect((yield* listed(email))!.componentIds!.toSorted()).toEqual([search, status].toSorted())

      // Refused, nothing changed: a wrong token, a private or unknown component, a post from another site.
      const refusals = [
        [[["email", email], ["token", "wrong"], ["action", "save"]], {}, 404],
        [[...pair, ["componentIds", secret], ["action", "save"]], {}, 400],
        [[...pair, ["componentIds", "gone"], ["action", "save"]], {}, 400],
        [[...pair, ["action", "save"]], { origin: "https://elsewhere.example" }, 403],
        [[["email", email], ["token", "wrong"], ["action", "unsubscribe"]], {}, 404]
      ] as const
      for (const [fields, headers, code] of refusals) {
        const answer = yield* postForm("/subscription", fields, headers)
        expect(answer.status, JSON.stringify(fields)).toBe(code)
      }
      expect((yield* listed(email))!.componentIds!.toSorted()).toEqual([search, status].toSorted())

      // A group's "All of" box stands for its public components as they are now; an unknown or
      // private group is refused like an unknown component.
      const group = yield* post("/api/v1/admin/component-groups", { name: "Discovery" })
      const hidden = yield* post("/api/v1/admin/component-groups", { name: "Hidden", isPublic: false })
      for (const id of [search, secret]) {
        yield* sendJson("PUT", `/api/v1/admin/components/${id}`, { groupId: group.body.id })
      }
      const grouped = yield* getPage(`${link.pathname}${link.search}`)
      expect(grouped.html).toContain(`name="groupIds" value="${group.body.id}"`)
      expect(grouped.html).toContain("All of Discovery")
      const byGroup = yield* postForm("/subscription", [...pair, ["groupIds", String(group.body.id)], [
        "action",
        "save"
      ]])
      expect(byGroup.status).toBe(200)
      expect(yield* listed(email)).toMatchObject({ componentIds: [search] })
      // A group repeated thousands of times counts once.
      const repeated = yield* postForm("/subscription", [
        ...pair,
        ...Array.from({ length: 5000 }, () => ["groupIds", String(group.body.id)] as const),
        ["action", "save"]
      ])
      expect(repeated.status).toBe(200)
      expect(yield* listed(email)).toMatchObject({ componentIds: [search] })
      for (const groupId of [String(hidden.body.id), "no-such-group"]) {
        const refused = yield* postForm("/subscription", [...pair, ["groupIds", groupId], ["action", "save"]])
        expect(refused.status, groupId).toBe(400)
      }
      expect(yield* listed(email)).toMatchObject({ componentIds: [search] })

      // No box ticked: every component.
      const all = yield* postForm("/subscription", [...pair, ["action", "save"]])
      expect(all.html).toContain("Saved: you hear about every component.")
      expect(yield* listed(email)).toMatchObject({ componentIds: null })

      // More than 100 components through a group: refused with its own message, nothing changed.
      const big = yield* post("/api/v1/admin/component-groups", { name: "Everything else" })
      for (let i = 0; i < 101; i++) {
        yield* post("/api/v1/admin/components", { name: `Part ${i}`, groupId: big.body.id })
      }
      const tooMany = yield* postForm("/subscription", [...pair, ["groupIds", String(big.body.id)], ["action", "save"]])
      expect(tooMany.status).toBe(400)
      expect(tooMany.html).toContain("Choose at most 100 components")
      expect(yield* listed(email)).toMatchObject({ componentIds: null })

      // A choice whose components are all gone since is not shown as "every component".
      yield* postForm("/subscription", [...pair, ["componentIds", status], ["action", "save"]])
      yield* sendJson("DELETE", `/api/v1/admin/components/${status}`)
      const emptied = yield* getPage(`${link.pathname}${link.search}`)
      expect(emptied.html).toContain("None of the components you chose is listed any more")

      const gone = yield* postForm("/subscription", [...pair, ["action", "unsubscribe"]])
      expect(gone.status).toBe(200)
      expect(gone.html).toContain("reader@example.test will receive no more updates.")
      expect(yield* listed(email)).toBeUndefined()
      expect((yield* getPage(`${link.pathname}${link.search}`)).status).toBe(404)
    }))
})
