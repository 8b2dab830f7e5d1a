/**
 * What a browser test file sets up: the full stack on a loopback port and Chromium, started
 * before the file's tests and closed after them, with no unexpected page error allowed in any
 * test. Call it once at the top of the file.
 */
import { Effect, Exit, Scope } from "effect"
import type { Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, expect } from "vitest"

import { adminVariables } from "./Auth.js"
import { type Browser, launchBrowser, openAdminScreen, unexpectedPageErrors } from "./Browser.js"
import { startLiveStack } from "./LiveStack.js"
import { type SmtpCapture, smtpCapture } from "./SmtpCapture.js"
import { ApiClient } from "./TestServer.js"

export type LiveStack = Awaited<ReturnType<typeof startLiveStack>>

export interface BrowserStack {
  /** The stack and the browser exist from the file's `beforeAll` on: read them inside tests. */
  readonly stack: LiveStack
  readonly browser: Browser
  /** Runs `request` with the stack's API client (the suite's API key). */
  readonly api: <A, E>(request: (client: Effect.Success<typeof ApiClient>) => Effect.Effect<A, E>) => Promise<A>
  /** A page on the dashboard screen `screen`, signed in. */
  readonly openScreen: (screen: string) => Promise<Page>
}

export const useBrowserStack = (
  variables: Record<string, string> = adminVariables,
  /** Runs before the stack starts; what it answers is added to the stack's variables. */
  before: () => Promise<Record<string, string>> = async () => ({})
): BrowserStack => {
  let stack: LiveStack | undefined
  let browser: Browser | undefined

  beforeAll(async () => {
    stack = await startLiveStack({ ...variables, ...(await before()) })
    browser = await launchBrowser()
  })

  afterEach(() => {
    expect(unexpectedPageErrors(suite.browser)).toEqual([])
  })

  afterAll(async () => {
    await browser?.close()
    await stack?.dispose()
  })

  const started = <A>(value: A | undefined): A => {
    if (value === undefined) throw new Error("the browser stack starts in beforeAll: use it inside a test")
    return value
  }

  const suite: BrowserStack = {
    get stack() {
      return started(stack)
    },
    get browser() {
      return started(browser)
    },
    api: (request) => suite.stack.run(Effect.flatMap(ApiClient, request)),
    openScreen: (screen) => openAdminScreen(suite.browser, suite.stack.baseUrl, screen)
  }
  return suite
}

/** The same, with a real SMTP server capturing the stack's mail (`smtp`), closed after the file. */
export const useBrowserStackWithSmtp = (
  variables: Record<string, string> = adminVariables
): BrowserStack & { readonly smtp: SmtpCapture } => {
  let smtp: SmtpCapture | undefined
  const scope = Effect.runSync(Scope.make())
  const suite = useBrowserStack(variables, async () => {
    smtp = await Effect.runPromise(Scope.provide(smtpCapture, scope))
    return { SMTP_URL: smtp.url, MAIL_FROM: "Status <status@example.test>" }
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return {
    get stack() {
      return suite.stack
    },
    get browser() {
      return suite.browser
    },
    api: suite.api,
    openScreen: suite.openScreen,
    get smtp() {
      if (smtp === undefined) throw new Error("the SMTP server starts in beforeAll: use it inside a test")
      return smtp
    }
  }
}
