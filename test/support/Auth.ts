/** Signing in over HTTP, and reading the session cookie a response sets. */
import { Effect } from "effect"

import { sendAnonymous } from "./TestServer.js"

export const adminEmail = "ops@example.com"
export const adminPassword = "correct horse battery staple"
export const adminVariables = { ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: adminPassword }

type SetCookie = { readonly name: string; readonly value: string; readonly attributes: ReadonlyArray<string> }

/**
 * The cookies a response sets, each split into its value and attributes. The client joins
 * several `Set-Cookie` headers with ", ": a new cookie starts after one followed by `name=`.
 */
export const parseSetCookies = (header: string | undefined): ReadonlyArray<SetCookie> =>
  header === undefined ? [] : header.split(/,\s*(?=[^;=\s,]+=)/).map((cookie) => {
    const [pair, ...attributes] = cookie.split(";").map((part) => part.trim())
    const [name, ...value] = pair!.split("=")
    return { name: name!, value: value.join("="), attributes: attributes.map((a) => a.toLowerCase()) }
  })

/** The session cookie a response sets, if any. */
export const parseSetCookie = (header: string | undefined) =>
  parseSetCookies(header).find(({ name }) => name === "__Host-session")

export const signIn = (email = adminEmail, password = adminPassword, headers: Record<string, string> = {}) =>
  Effect.map(sendAnonymous("POST", "/api/v1/auth/signin", { email, password }, headers), (response) => ({
    ...response,
    cookie: parseSetCookie(response.headers["set-cookie"]),
    deviceCookie: parseSetCookies(response.headers["set-cookie"]).find(({ name }) => name === "__Host-device")
  }))

/** Signs in and returns the `Cookie` header value to send. */
export const sessionCookieHeader = Effect.map(signIn(), ({ cookie, status }) => {
  if (status !== 200 || cookie === undefined) throw new Error(`sign-in failed with ${status}`)
  return `${cookie.name}=${cookie.value}`
})
