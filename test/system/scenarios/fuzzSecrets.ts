/**
 * What the fuzzer needs from the test bed so that every operation can succeed: an
 * administrator's credentials (the first administrator, given a new password with the CLI, as
 * an operator would: docs/authentication.md), and the mail the SMTP capture received for the
 * fuzzer's `fuzz-…@example.com` subscribers, whose links carry the verify and unsubscribe tokens.
 */
import { randomBytes } from "node:crypto"

import { runCommand } from "../../support/ChildProcess.js"
import { adminUrl } from "../../support/TestDatabase.js"
import { isFuzzAddress } from "../fuzz/secrets.js"
import type { TestBed } from "../TestBed.js"

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
    password
  )
  if (reset.code !== 0) throw new Error(`resetting the administrator's password failed: ${reset.stderr}`)
  return {
    signIn: { email, password },
    mailbox: () =>
      bed.smtp.messages.filter((mail) => mail.envelopeTo.some(isFuzzAddress)).map((mail) => mail.parsed.text ?? "")
  }
}
