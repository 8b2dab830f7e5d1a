/**
 * Status pages through the admin API on the real database: the migrated default page, the round
 * trip, the rules a schema cannot check (unique slug and domain, items that exist, a password
 * exactly when protected, one default page that is always public), `If-Match`, and what the
 * public side reads of them (`StatusPagesRepo.findAll`, `StatusPages.verifyPassword`).
 */
import { expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"

import { StatusPagesRepo } from "../../src/persistence/StatusPagesRepo.js"
import { StatusPages } from "../../src/services/catalog/StatusPages.js"
import { embeddedConfig } from "../support/TestDatabase.js"
import { ApiClient, sendAnonymous, sendJson, TestServer, TestStack } from "../support/TestServer.js"

const pages = "/api/v1/admin/pages"

const Stack = Layer.merge(StatusPages.layer, StatusPagesRepo.layer).pipe(Layer.provideMerge(TestServer()))

const pageKeys = [
  "audience",
  "brandColor",
  "createdAt",
  "description",
  "domain",
  "footerLinks",
  "id",
  "isDefault",
  "items",
  "languages",
  "locale",
  "logoUrl",
  "slug",
  "timeZone",
  "title",
  "updatedAt"
]

/** The page answered with `status`, its body checked to carry no password. */
const expectPage = (response: { status: number; body: any }, status = 200) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status)
  expect(Object.keys(response.body).sort()).toEqual(pageKeys)
  return response.body
}

const defaultPage = Effect.gen(function*() {
  const list = yield* sendJson("GET", pages)
  return (list.body as ReadonlyArray<any>).find((page) => page.isDefault)
})

it.layer(Stack)("status pages", (it) => {
  it.effect("the migration made the default page, showing every public component with the organization's look", () =>
    Effect.gen(function*() {
      const list = yield* sendJson("GET", pages)
      expect(list.status).toBe(200)
      const page = (list.body as ReadonlyArray<any>)[0]
      expect(page).toMatchObject({
        slug: "default",
        isDefault: true,
        items: null,
        title: null,
        logoUrl: null,
        brandColor: null,
        timeZone: null,
        domain: null,
        audience: "public",
        locale: "en",
        languages: ["en"],
        description: "",
        footerLinks: []
      })
      expectPage(yield* sendJson("GET", `${pages}/${page.id}`))
      expect((yield* sendAnonymous("GET", pages)).status).toBe(401)
    }))

  it.effect("creates, reads, lists, updates partially and deletes a page", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const group = yield* client.componentGroups.create({ payload: { name: "Data" } })
      const api = yield* client.components.create({ payload: { name: "API" } })
      const secret = yield* client.components.create({ payload: { name: "Internal", isPublic: false } })

      const created = expectPage(
        yield* sendJson("POST", pages, {
          slug: "customers",
          title: "Customer status",
          description: "For our customers",
          logoUrl: "https://example.com/logo.png",
          brandColor: "#0a7cff",
          locale: "fr",
          languages: ["de", "fr"],
          timeZone: "Europe/Paris",
          domain: "status.example.com",
          items: [{ type: "group", id: group.id }, { type: "component", id: api.id }, {
            type: "component",
            id: secret.id
          }],
          footerLinks: [{ label: "Home", url: "https://example.com/" }]
        }),
        201
      )
      expect(created).toMatchObject({
        slug: "customers",
        title: "Customer status",
        locale: "fr",
        languages: ["fr", "de"],
        timeZone: "Europe/Paris",
        domain: "status.example.com",
        audience: "public",
        isDefault: false,
        items: [{ type: "group", id: group.id }, { type: "component", id: api.id }, {
          type: "component",
          id: secret.id
        }],
        footerLinks: [{ label: "Home", url: "https://example.com/" }]
      })
      const read = yield* client.statusPages.get({ params: { id: created.id } })
      expect(read.slug).toBe("customers")
      expect(expectPage(yield* sendJson("GET", `${pages}/${created.id}`))).toEqual(created)

      // Only the slug is required; the rest takes its defaults.
      const minimal = expectPage(yield* sendJson("POST", pages, { slug: "partners" }), 201)
      expect(minimal).toMatchObject({
        title: null,
        description: "",
        locale: "en",
        languages: ["en"],
        items: null,
        footerLinks: [],
        audience: "public",
        isDefault: false
      })

      // Paged like the other admin lists: the default first, then by slug.
      const first = yield* sendJson("GET", `${pages}?limit=2`)
      expect((first.body as ReadonlyArray<any>).map((page) => page.slug)).toEqual(["default", "customers"])
      const next = /<([^>]+)>; rel="next"/.exec(first.headers["link"] ?? "")?.[1]
      expect(next).toBeDefined()
      const second = yield* sendJson("GET", next!)
      expect((second.body as ReadonlyArray<any>).map((page) => page.slug)).toEqual(["partners"])
      expect(second.headers["link"]).toBeUndefined()

      const retitled = expectPage(yield* sendJson("PUT", `${pages}/${created.id}`, { title: "Customers" }))
      expect(retitled).toMatchObject({ ...created, title: "Customers", updatedAt: retitled.updatedAt })
      const unchanged = expectPage(yield* sendJson("PUT", `${pages}/${created.id}`, {}))
      expect(unchanged).toEqual(retitled)
      // A new locale alone keeps the languages offered and adds itself, first.
      const japanese = expectPage(yield* sendJson("PUT", `${pages}/${created.id}`, { locale: "ja" }))
      expect(japanese.languages).toEqual(["ja", "fr", "de"])
      const english = expectPage(yield* sendJson("PUT", `${pages}/${created.id}`, { languages: ["de"] }))
      expect(english.languages).toEqual(["ja", "de"])
      const everything = expectPage(
        yield* sendJson("PUT", `${pages}/${created.id}`, { items: null, domain: null, title: null })
      )
      expect(everything).toMatchObject({ items: null, domain: null, title: null, slug: "customers" })
      const reordered = expectPage(
        yield* sendJson("PUT", `${pages}/${created.id}`, {
          items: [{ type: "component", id: api.id }, { type: "group", id: group.id }]
        })
      )
      expect(reordered.items).toEqual([{ type: "component", id: api.id }, { type: "group", id: group.id }])
      // A component deleted leaves the pages that listed it.
      yield* client.components.remove({ params: { id: api.id } })
      expect((yield* client.statusPages.get({ params: { id: created.id } })).items).toEqual([
        { type: "group", id: group.id }
      ])

      expect((yield* sendJson("DELETE", `${pages}/${created.id}`)).status).toBe(204)
      expect((yield* sendJson("DELETE", `${pages}/${minimal.id}`)).status).toBe(204)
      for (
        const [method, body] of [["GET", undefined], ["PUT", { title: "x" }], ["DELETE", undefined]] as const
      ) {
        const response = yield* sendJson(method, `${pages}/${created.id}`, body)
        expect(response.status, method).toBe(404)
        expect(response.body).toEqual({ _tag: "NotFound", message: `Status page "${created.id}" was not found` })
      }
    }))

  it.effect("refuses a slug or domain another page has, unknown or repeated items, and bad fields", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const web = yield* client.components.create({ payload: { name: "Web" } })
      const taken = expectPage(
        yield* sendJson("POST", pages, { slug: "taken-domain", domain: "taken.example.com" }),
        201
      )
      const other = expectPage(yield* sendJson("POST", pages, { slug: "other" }), 201)

      const slug = yield* sendJson("POST", pages, { slug: "taken-domain" })
      expect(slug.status).toBe(409)
      expect(slug.body).toEqual({
        _tag: "Conflict",
        message: "A status page with the slug \"taken-domain\" already exists"
      })
      const defaultSlug = yield* sendJson("POST", pages, { slug: "default" })
      expect(defaultSlug.status).toBe(409)
      const domain = yield* sendJson("POST", pages, { slug: "fresh", domain: "taken.example.com" })
      expect(domain.status).toBe(409)
      expect(domain.body).toEqual({
        _tag: "Conflict",
        message: "A status page with the domain \"taken.example.com\" already exists"
      })
      expect((yield* sendJson("PUT", `${pages}/${other.id}`, { slug: "taken-domain" })).status).toBe(409)
      expect((yield* sendJson("PUT", `${pages}/${other.id}`, { domain: "taken.example.com" })).status).toBe(409)
      // Its own slug and domain are no conflict.
      expectPage(yield* sendJson("PUT", `${pages}/${taken.id}`, { slug: "taken-domain", domain: "taken.example.com" }))

      const unknown = yield* sendJson("POST", pages, {
        slug: "unknown-items",
        items: [{ type: "component", id: web.id }, { type: "component", id: "nope" }, { type: "group", id: web.id }]
      })
      expect(unknown.status).toBe(400)
      expect(unknown.body).toEqual({
        _tag: "BadRequest",
        message: "Unknown items: \"nope\", " + JSON.stringify(web.id),
        issues: [
          { path: ["items", 1, "id"], message: "unknown component \"nope\"" },
          { path: ["items", 2, "id"], message: `unknown group ${JSON.stringify(web.id)}` }
        ]
      })
      const twice = yield* sendJson("PUT", `${pages}/${other.id}`, {
        items: [{ type: "component", id: web.id }, { type: "component", id: web.id }]
      })
      expect(twice.status).toBe(400)
      expect(twice.body.issues).toEqual([{ path: ["items", 1, "id"], message: "lists the component a second time" }])
      expect((yield* sendJson("GET", pages)).body.map((page: any) => page.slug)).not.toContain("unknown-items")

      for (
        const body of [
          {},
          { slug: "Upper" },
          { slug: "-edge" },
          { slug: "x".repeat(65) },
          { slug: "ok", domain: "https://status.example.com" },
          { slug: "ok", locale: "xx" },
          { slug: "ok", brandColor: "blue" },
          { slug: "ok", items: [{ type: "monitor", id: "x" }] },
          { slug: "ok", audience: "secret" },
          { slug: "ok", audience: "protected", password: "short" },
          { slug: "ok", footerLinks: [{ label: "x", url: "javascript:alert(1)" }] },
          { slug: "ok", unknownField: true }
        ]
      ) {
        const response = yield* sendJson("POST", pages, body)
        expect(response.status, JSON.stringify(body)).toBe(400)
      }
      yield* client.statusPages.remove({ params: { id: taken.id } })
      yield* client.statusPages.remove({ params: { id: other.id } })
    }))

  it.effect("protects a page with a password it never answers, checked by verifyPassword", () =>
    Effect.gen(function*() {
      const statusPages = yield* StatusPages
      const repo = yield* StatusPagesRepo
      const without = yield* sendJson("POST", pages, { slug: "internal", audience: "protected" })
      expect(without.status).toBe(400)
      expect(without.body.issues).toEqual([{ path: ["password"], message: "is required for a protected page" }])
      const publicWithPassword = yield* sendJson("POST", pages, { slug: "internal", password: "open sesame" })
      expect(publicWithPassword.status).toBe(400)

      const created = yield* sendJson("POST", pages, {
        slug: "internal",
        audience: "protected",
        password: "open sesame"
      })
      const page = expectPage(created, 201)
      expect(page.audience).toBe("protected")
      expect(JSON.stringify(created.body)).not.toContain("sesame")
      expect(JSON.stringify((yield* sendJson("GET", pages)).body)).not.toMatch(/sesame|scrypt|password/i)
      expect(yield* statusPages.verifyPassword(page.id, "open sesame")).toBe(true)
      expect(yield* statusPages.verifyPassword(page.id, "open sesame!")).toBe(false)
      expect(yield* statusPages.verifyPassword("nope", "open sesame")).toBe(false)

      // The public side gets a tag of the password, which changes with it.
      const tagOf = Effect.map(
        repo.findAll(),
        (definitions) => definitions.find((definition) => definition.page.id === page.id)?.passwordTag
      )
      const tag = yield* tagOf
      expect(tag).toMatch(/^[0-9a-f]{16}$/)
      const definitions = yield* repo.findAll()
      expect(definitions[0]!.page.isDefault).toBe(true)
      expect(definitions[0]!.passwordTag).toBeNull()

      // Other changes keep the password; a new one replaces it.
      expectPage(yield* sendJson("PUT", `${pages}/${page.id}`, { title: "Internal", audience: "protected" }))
      expect(yield* statusPages.verifyPassword(page.id, "open sesame")).toBe(true)
      expectPage(yield* sendJson("PUT", `${pages}/${page.id}`, { password: "another secret" }))
      expect(yield* statusPages.verifyPassword(page.id, "open sesame")).toBe(false)
      expect(yield* statusPages.verifyPassword(page.id, "another secret")).toBe(true)
      expect(yield* tagOf).not.toBe(tag)

      // Public forgets the password: protecting it again needs a new one.
      const opened = expectPage(yield* sendJson("PUT", `${pages}/${page.id}`, { audience: "public" }))
      expect(opened.audience).toBe("public")
      expect(yield* statusPages.verifyPassword(page.id, "another secret")).toBe(false)
      expect(yield* tagOf).toBeNull()
      expect((yield* sendJson("PUT", `${pages}/${page.id}`, { password: "another secret" })).status).toBe(400)
      expect((yield* sendJson("PUT", `${pages}/${page.id}`, { audience: "protected" })).status).toBe(400)
      expect((yield* sendJson("PUT", `${pages}/${page.id}`, { audience: "public", password: "12345678" })).status)
        .toBe(400)
      yield* sendJson("DELETE", `${pages}/${page.id}`)
    }))

  it.effect("keeps one default page, always public: it moves, and is neither deleted nor protected", () =>
    Effect.gen(function*() {
      const original = yield* defaultPage
      const deleted = yield* sendJson("DELETE", `${pages}/${original.id}`)
      expect(deleted.status).toBe(409)
      expect(deleted.body._tag).toBe("Conflict")
      const protectedDefault = yield* sendJson("PUT", `${pages}/${original.id}`, {
        audience: "protected",
        password: "open sesame"
      })
      expect(protectedDefault.status).toBe(409)
      expect((yield* sendJson("PUT", `${pages}/${original.id}`, { isDefault: false })).status).toBe(409)
      expect(
        (yield* sendJson("POST", pages, {
          slug: "guarded",
          isDefault: true,
          audience: "protected",
          password: "12345678"
        }))
          .status
      ).toBe(409)

      // A new default: the previous one becomes an ordinary page, and may then be deleted.
      const next = expectPage(yield* sendJson("POST", pages, { slug: "main", isDefault: true }), 201)
      expect(next.isDefault).toBe(true)
      const previous = expectPage(yield* sendJson("GET", `${pages}/${original.id}`))
      expect(previous.isDefault).toBe(false)
      expect((yield* sendJson("GET", pages)).body.filter((page: any) => page.isDefault).map((page: any) => page.id))
        .toEqual([next.id])
      // Moved back by an update.
      const back = expectPage(yield* sendJson("PUT", `${pages}/${original.id}`, { isDefault: true }))
      expect(back.isDefault).toBe(true)
      expect(expectPage(yield* sendJson("GET", `${pages}/${next.id}`)).isDefault).toBe(false)
      // A protected page made the default is refused; it stays as it was.
      const guarded = expectPage(
        yield* sendJson("POST", pages, { slug: "guarded", audience: "protected", password: "12345678" }),
        201
      )
      expect((yield* sendJson("PUT", `${pages}/${guarded.id}`, { isDefault: true })).status).toBe(409)
      expect((yield* defaultPage).id).toBe(original.id)
      expect((yield* sendJson("DELETE", `${pages}/${next.id}`)).status).toBe(204)
      expect((yield* sendJson("DELETE", `${pages}/${guarded.id}`)).status).toBe(204)
    }))

  it.effect("answers an ETag, honours If-Match (412 when stale) and replays an Idempotency-Key", () =>
    Effect.gen(function*() {
      const created = yield* sendJson("POST", pages, { slug: "tagged" }, { "idempotency-key": "page-tagged" })
      const page = expectPage(created, 201)
      const replayed = yield* sendJson("POST", pages, { slug: "tagged" }, { "idempotency-key": "page-tagged" })
      expect(replayed.status).toBe(201)
      expect(replayed.headers["idempotent-replayed"]).toBe("true")
      expect(replayed.body.id).toBe(page.id)

      const read = yield* sendJson("GET", `${pages}/${page.id}`)
      const etag = read.headers["etag"]
      expect(etag).toMatch(/^"[\w-]+"$/)
      const edited = yield* sendJson("PUT", `${pages}/${page.id}`, { title: "Tagged" }, { "if-match": etag! })
      expect(edited.status).toBe(200)
      expect(edited.headers["etag"]).not.toBe(etag)
      const stale = yield* sendJson("PUT", `${pages}/${page.id}`, { title: "Lost" }, { "if-match": etag! })
      expect(stale.status).toBe(412)
      expect(stale.body).toEqual({
        _tag: "PreconditionFailed",
        message: "The status page changed since you read it: read it again and retry"
      })
      expect((yield* sendJson("DELETE", `${pages}/${page.id}`, undefined, { "if-match": etag! })).status).toBe(412)
      expect(expectPage(yield* sendJson("GET", `${pages}/${page.id}`)).title).toBe("Tagged")
      expect(
        (yield* sendJson("DELETE", `${pages}/${page.id}`, undefined, { "if-match": edited.headers["etag"]! })).status
      ).toBe(204)
    }))
})

// `npm start`'s database: the same statements on PGlite.
layer(TestStack(embeddedConfig()), { excludeTestServices: true, timeout: 120_000 })(
  "status pages on the embedded database",
  (it) => {
    it.effect("round trip with items, a moved default and a delete", () =>
      Effect.gen(function*() {
        const client = yield* ApiClient
        const component = yield* client.components.create({ payload: { name: "Web" } })
        const group = yield* client.componentGroups.create({ payload: { name: "Core" } })
        const original = yield* defaultPage
        const created = expectPage(
          yield* sendJson("POST", pages, {
            slug: "embedded",
            isDefault: true,
            languages: ["de"],
            items: [{ type: "component", id: component.id }, { type: "group", id: group.id }]
          }),
          201
        )
        expect(created).toMatchObject({
          isDefault: true,
          languages: ["en", "de"],
          items: [{ type: "component", id: component.id }, { type: "group", id: group.id }]
        })
        expect(expectPage(yield* sendJson("GET", `${pages}/${original.id}`)).isDefault).toBe(false)
        expect((yield* sendJson("POST", pages, { slug: "embedded" })).status).toBe(409)
        expectPage(yield* sendJson("PUT", `${pages}/${original.id}`, { isDefault: true }))
        const list = yield* sendJson("GET", `${pages}?limit=1`)
        expect(list.body.map((page: any) => page.slug)).toEqual(["default"])
        expect(list.headers["link"]).toContain("rel=\"next\"")
        expect((yield* sendJson("DELETE", `${pages}/${created.id}`)).status).toBe(204)
      }))
  }
)
