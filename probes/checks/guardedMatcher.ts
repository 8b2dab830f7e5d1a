/**
 * `matches` with a time limit (src/domain/JsonAssertion.ts): the pattern runs in a `vm` context
 * whose time-out V8 enforces inside the regular expression engine too, so a pattern that
 * backtracks for ages on the target's text (`^(a|a)*$` on "aaaa…!") fails its assertion after
 * `assertionLimits.matchMs` instead of freezing the probe, and the service in the embedded
 * default. A call costs about 0.4 ms (the time-out's watchdog), paid only by `matches`.
 */
import { createContext, Script } from "node:vm"

import { assertionLimits, type Matcher } from "../../src/domain/JsonAssertion.js"

// Made at the first `matches`: a context costs an idle probe memory it may never need.
let made: { readonly context: Record<string, string>; readonly test: Script } | undefined

export const guardedMatcher: Matcher = (source, subject) => {
  made ??= { context: createContext({ source: "", subject: "" }), test: new Script("new RegExp(source).test(subject)") }
  const { context, test } = made
  context.source = source
  context.subject = subject
  try {
    return test.runInContext(context, { timeout: assertionLimits.matchMs }) === true
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout"
    throw error
  } finally {
    context.source = ""
    context.subject = ""
  }
}
