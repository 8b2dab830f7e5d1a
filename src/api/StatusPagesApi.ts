import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { Conflict, NotFound } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
import { CreateStatusPage, StatusPage, StatusPageId, UpdateStatusPage } from "../domain/StatusPage.js"
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { Authentication } from "./Security.js"

const PagePath = Schema.Struct({ id: StatusPageId })

const rules = "`slug` (the page's `/p/<slug>/`) and `domain` (a host name that serves the page at `/`) are " +
  "unique: another page's is **409** `Conflict`. `languages` is stored as `locale` first, then the others once " +
  "each. `items` null shows every public component, grouped as the catalogue groups them; otherwise it is the " +
  "page's layout in order, each `{ \"type\": \"component\" | \"group\", \"id\" }` naming an existing component or " +
  "group (a private one may be listed: the page leaves it out until it is public); an unknown id or one listed " +
  "twice is **400** with an issue at `[\"items\", i, \"id\"]`. `audience` `\"protected\"` needs a `password` " +
  "(8–200 characters), which is stored hashed and never answered; a `password` on a public page is 400."

export class StatusPagesApi extends HttpApiGroup.make("statusPages")
  .add(
    HttpApiEndpoint.get("list", "/", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(StatusPage)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List status pages",
        "Every page, the default first, then by `slug`.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.get("get", "/:id", { params: PagePath, success: StatusPage, error: NotFound })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Read a status page",
        "One status page as the list shows it, with its `ETag` for `If-Match`. An unknown id is 404."
      ))
  )
  .add(
    HttpApiEndpoint.post("create", "/", {
      payload: CreateStatusPage,
      success: StatusPage.pipe(HttpApiSchema.status(201)),
      error: Conflict
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Create a status page",
        "Only `slug` is required. Defaults: `title`, `logoUrl`, `brandColor` and `timeZone` null (the " +
          "organization's are shown), `description` `\"\"`, `locale` `en`, `domain` null, `audience` `public`, " +
          "`items` null, no `footerLinks`, and not the default. Answers **201** with the page.",
        rules,
        "`isDefault: true` makes this page the default (served at `/` and the unprefixed public addresses) and the " +
          "previous default an ordinary page; the default page is always public (`protected` with it is 409)."
      ))
  )
  .add(
    HttpApiEndpoint.put("update", "/:id", {
      params: PagePath,
      payload: UpdateStatusPage,
      success: StatusPage,
      error: [NotFound, Conflict]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Update a status page",
        "A partial update: only the fields sent change, with the same rules as on creation; `{}` changes " +
          "nothing. An unknown id is 404.",
        rules,
        "A new `locale` alone keeps the other `languages` and adds it. A protected page keeps its password " +
          "unless a new one is sent; `audience` `\"public\"` forgets it, and a page made protected needs one. " +
          "`isDefault: true` moves the default here; `isDefault: false` on the default page is 409 (there is " +
          "always one), and so is protecting it."
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", {
      params: PagePath,
      success: HttpApiSchema.NoContent,
      error: [NotFound, Conflict]
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Delete a status page",
        "Answers **204**, then 404 for the same id. The page's subscribers are deleted with it. The default " +
          "page cannot be deleted (409): make another page the default first."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/pages")
  .annotateMerge(groupDocs(
    "Status pages: the addresses the public reads, each with its look, languages and components (admin; an API " +
      "key or a session is required, else 401).",
    "There is always exactly one default page, served at `/`; every page is served at `/p/<slug>/`, and at `/` " +
      "of its `domain`. A page shows the public components it lists (or all of them); a private component is " +
      "on no page. Every write answers once the public snapshot of its instance includes it."
  ))
{}
