import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { Conflict } from "../domain/Errors.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

export const backupContentType = "application/gzip"

/** The answer: the archive, streamed, with its file name and no caching. */
export const BackupAnswer = HttpApiSchema.WithHeaders(
  HttpApiSchema.StreamUint8Array({ contentType: backupContentType }),
  {
    "content-disposition": Schema.String.annotate({
      description: "`attachment; filename=\"status-page-<UTC time, 20260504T100000Z>.tar.gz\"`"
    }),
    "cache-control": Schema.Literal("no-store").annotate({
      description: "The backup holds secrets' hashes and subscribers' addresses: no cache may keep it."
    })
  }
)

export class BackupApi extends HttpApiGroup.make("operations")
  .add(
    HttpApiEndpoint.get("backup", "/backup", { success: BackupAnswer, error: Conflict })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Back up the embedded database",
        "The embedded database (PGlite under `DATA_DIR`) as it is at the request, taken while the service runs " +
          "and writes go on: a gzipped tar archive (`application/gzip`) of `status-page-backup.json` (the " +
          "service's version and when it was taken) and the data directory under `pgdata/`, the file that " +
          "`status-page restore` reads. It is streamed as it is read from a copy of the database's files (a new " +
          "deployment's 41 MB make about 5 MB); the copy is made in `DATA_DIR` (as much room as the database) and " +
          "removed once the answer ends. Every write waits for the copy (a fraction of a second to seconds, with " +
          "the database's size); none is lost, and those that finish later are not in the backup.",
        "Only an owner may take one (403 otherwise): it holds every password and key hash, every webhook's " +
          "secret and every subscriber's address. Each is written to the audit log (`operations.backup`), and " +
          "the answer is `Cache-Control: no-store`. One backup at a time: another asked meanwhile waits for it. " +
          "A service on PostgreSQL (`DATABASE_URL`) answers 409 `Conflict`: back it up with " +
          "`pg_dump` (docs/operations.md, \"Backups\")."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin")
  .annotateMerge(groupDocs(
    "Operating the service (admin; an API key or a session is required, else 401): backups of the embedded " +
      "database."
  ))
{}
