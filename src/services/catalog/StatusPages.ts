/**
 * Status pages: each an address, a look and a layout over the public catalogue (docs/api.md,
 * "Status pages"). The rules a schema cannot check alone live here: items that exist, one default
 * page that is always public, a password exactly when the page is protected.
 */
import { Context, Effect, Layer, Option } from "effect"

import { BadRequest, Conflict, type Issue, NotFound, orNotFound, ServiceUnavailable } from "../../domain/Errors.js"
import type { Locale } from "../../domain/Locale.js"
import type { PageRequest } from "../../domain/Page.js"
import type { CreateStatusPage, PageItem, StatusPage, StatusPageId, UpdateStatusPage } from "../../domain/StatusPage.js"
import { type PageFields, pageOf, StatusPagesRepo, type StoredPage } from "../../persistence/StatusPagesRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { Passwords } from "../auth/Passwords.js"
import { StateChanges, touch } from "../StateChanges.js"

/** The public side reads pages with the organization's profile. */
const touchesPages = touch({ organization: true })

/** `locale` first, then the others once each: the page always offers its own language. */
const offered = (locale: Locale, languages: ReadonlyArray<Locale>): ReadonlyArray<Locale> => [
  ...new Set([locale, ...languages])
]

const refused = (path: ReadonlyArray<string | number>, message: string, sentence: string) =>
  new BadRequest({ message: sentence, issues: [{ path, message }] })

const passwordWhilePublic = refused(
  ["password"],
  "is only taken for a protected page",
  "A password is only taken for a protected page: send audience \"protected\" with it"
)
const protectedWithoutPassword = refused(
  ["password"],
  "is required for a protected page",
  "A protected page needs a password: send one (8–200 characters) with audience \"protected\""
)
const defaultNotProtected = new Conflict({
  message: "The default page is always public: make another page the default first"
})
const defaultStays = new Conflict({
  message: "There is always a default page: make another page the default (isDefault true) instead"
})
const defaultNotDeleted = new Conflict({
  message: "The default page cannot be deleted: make another page the default first"
})
const passwordChecksBusy = new ServiceUnavailable({
  message: "Too many password checks at once; try again in a second"
})
const notFound = (id: string) => NotFound.of("Status page", id)

/** A page as its audit entry compares it: with its password's hash, which the entry shows as `(secret)`. */
type Audited = object
const audited = (page: StatusPage, passwordHash: string | null): Audited => ({ ...page, passwordHash })

export class StatusPages extends Context.Service<StatusPages>()("StatusPages", {
  make: Effect.gen(function*() {
    const repo = yield* StatusPagesRepo
    const passwords = yield* Passwords
    const changes = yield* StateChanges
    const audit = yield* AuditTrail

    /** The audit entry of a change of `page` from `before` to `after`. */
    const record = (page: StatusPage, before: Audited | undefined, after: Audited | undefined) =>
      audit.record({
        target: { type: "statusPage", id: page.id, name: page.title ?? page.slug },
        changes: changesBetween(before, after)
      })

    /**
     * `items` without duplicates when every id names an existing component or group (private ones
     * too: the public side leaves those out); else a 400 with an issue at each offending place.
     * Locks them until the transaction ends, so a concurrent delete cannot slip in first.
     */
    const checkItems = (items: ReadonlyArray<PageItem>) =>
      Effect.gen(function*() {
        const found = yield* repo.existing(
          [...new Set(items.filter((item) => item.type === "component").map((item) => item.id))].sort(),
          [...new Set(items.filter((item) => item.type === "group").map((item) => item.id))].sort()
        )
        const seen = new Set<string>()
        const issues: Array<Issue> = []
        const unknown: Array<string> = []
        items.forEach((item, index) => {
          const key = `${item.type}:${item.id}`
          const exists = item.type === "component" ? found.components.has(item.id) : found.groups.has(item.id)
          if (!exists) {
            issues.push({ path: ["items", index, "id"], message: `unknown ${item.type} ${JSON.stringify(item.id)}` })
            unknown.push(JSON.stringify(item.id))
          } else if (seen.has(key)) {
            issues.push({ path: ["items", index, "id"], message: `lists the ${item.type} a second time` })
          }
          seen.add(key)
        })
        if (issues.length === 0) return
        return yield* Effect.fail(
          new BadRequest({
            message: unknown.length > 0
              ? `Unknown items: ${[...new Set(unknown)].join(", ")}`
              : "Each component and group may be listed once in items",
            issues
          })
        )
      })

    /** Hashes a page's password before the transaction: scrypt takes a few hundred milliseconds. */
    const hashOf = (password: string | undefined) =>
      password === undefined ? Effect.succeed(undefined) : passwords.hash(password)

    /** Writes `fields` (a new page without `id`), moving the default first when this page becomes it. */
    const write = (
      id: string | undefined,
      fields: PageFields,
      items: ReadonlyArray<PageItem> | null | undefined,
      allComponents: boolean,
      wasDefault: boolean
    ) =>
      Effect.gen(function*() {
        if (items !== undefined && items !== null) yield* checkItems(items)
        if (fields.isDefault && !wasDefault) yield* repo.clearDefault()
        const pageId = id === undefined
          ? yield* repo.insert(fields, allComponents)
          : yield* Effect.as(repo.update(id, fields, allComponents), id)
        if (items !== undefined) yield* repo.setItems(pageId, items ?? [])
        return pageId
      })

    const answer = (id: string) =>
      Effect.flatMap(repo.findById(id), (page) =>
        Option.isSome(page) ? Effect.succeed(page.value) : Effect.die(
          new Error(`Status page ${id} vanished within its own transaction`)
        ))

    return {
      list: Effect.fn("StatusPages.list")((page: PageRequest) => repo.findPage(page)),

      get: Effect.fn("StatusPages.get")((id: StatusPageId) => repo.findById(id).pipe(orNotFound("Status page", id))),

      /**
       * Whether `password` is the page's, compared in constant time as administrators' passwords
       * are; false for an unknown or public page. A burst of checks beyond what the hashing admits
       * is a 503 the reader may retry.
       */
      verifyPassword: Effect.fn("StatusPages.verifyPassword")(
        (pageId: string, password: string): Effect.Effect<boolean, ServiceUnavailable> =>
          Effect.flatMap(repo.passwordHashOf(pageId), (hash) =>
            Option.match(hash, {
              onNone: () => Effect.succeed(false),
              onSome: (stored) =>
                passwords.verify(password, stored).pipe(
                  Effect.catchTag(
                    "TooManyRequests",
                    () => Effect.fail(passwordChecksBusy)
                  )
                )
            }))
      ),

      create: Effect.fn("StatusPages.create")(function*(input: CreateStatusPage) {
        const audience = input.audience ?? "public"
        const isDefault = input.isDefault ?? false
        if (audience === "public" && input.password !== undefined) return yield* passwordWhilePublic
        if (audience === "protected" && input.password === undefined) return yield* protectedWithoutPassword
        if (isDefault && audience === "protected") return yield* defaultNotProtected
        const passwordHash = (yield* hashOf(input.password)) ?? null
        const locale = input.locale ?? "en"
        const fields: PageFields = {
          slug: input.slug,
          title: input.title ?? null,
          description: input.description ?? "",
          logoUrl: input.logoUrl ?? null,
          brandColor: input.brandColor ?? null,
          locale,
          languages: offered(locale, input.languages ?? []),
          timeZone: input.timeZone ?? null,
          domain: input.domain ?? null,
          audience,
          passwordHash,
          isDefault,
          footerLinks: input.footerLinks ?? []
        }
        const items = input.items ?? null
        return yield* changes.commit(Effect.gen(function*() {
          yield* touchesPages
          const created = yield* answer(yield* write(undefined, fields, items, items === null, false))
          yield* record(created, undefined, audited(created, passwordHash))
          return created
        }))
      }),

      /** A partial update; `{}` changes nothing, `updatedAt` included. */
      update: Effect.fn("StatusPages.update")(function*(id: StatusPageId, update: UpdateStatusPage) {
        if (update.audience === "public" && update.password !== undefined) return yield* passwordWhilePublic
        const newHash = yield* hashOf(update.password)
        return yield* changes.commit(Effect.gen(function*() {
          yield* touchesPages
          const current: StoredPage = yield* repo.findForUpdate(id).pipe(orNotFound("Status page", id))
          const before = audited(pageOf(current), current.passwordHash)
          if (Object.keys(update).length === 0) {
            yield* record(pageOf(current), before, before)
            return pageOf(current)
          }
          const audience = update.audience ?? current.audience
          if (audience === "public" && update.password !== undefined) return yield* passwordWhilePublic
          const passwordHash = audience === "public" ? null : newHash ?? current.passwordHash
          if (passwordHash === null && audience === "protected") return yield* protectedWithoutPassword
          if (current.isDefault && update.isDefault === false) return yield* defaultStays
          const isDefault = update.isDefault ?? current.isDefault
          if (isDefault && audience === "protected") return yield* defaultNotProtected
          const locale = update.locale ?? current.locale
          const fields: PageFields = {
            slug: update.slug ?? current.slug,
            title: update.title === undefined ? current.title : update.title,
            description: update.description ?? current.description,
            logoUrl: update.logoUrl === undefined ? current.logoUrl : update.logoUrl,
            brandColor: update.brandColor === undefined ? current.brandColor : update.brandColor,
            locale,
            // A new locale alone keeps the languages offered and adds it.
            languages: offered(locale, update.languages ?? current.languages),
            timeZone: update.timeZone === undefined ? current.timezone : update.timeZone,
            domain: update.domain === undefined ? current.domain : update.domain,
            audience,
            passwordHash,
            isDefault,
            footerLinks: update.footerLinks ?? current.footerLinks
          }
          const allComponents = update.items === undefined ? current.allComponents : update.items === null
          yield* write(id, fields, update.items, allComponents, current.isDefault)
          const updated = yield* answer(id)
          yield* record(updated, before, audited(updated, passwordHash))
          return updated
        }))
      }),

      /** Its subscribers are deleted with it. The default page stays (409). */
      remove: Effect.fn("StatusPages.remove")(function*(id: StatusPageId) {
        yield* changes.commit(Effect.gen(function*() {
          yield* touchesPages
          const current = yield* repo.findForUpdate(id)
          if (Option.isNone(current)) return yield* notFound(id)
          if (current.value.isDefault) return yield* defaultNotDeleted
          yield* repo.remove(id)
          const removed = pageOf(current.value)
          yield* record(removed, audited(removed, current.value.passwordHash), undefined)
        }))
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([StatusPagesRepo.layer, Passwords.layer, StateChanges.layer, AuditTrail.layer])
  )
}
