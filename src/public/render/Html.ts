/**
 * Building HTML as strings with every piece of user text escaped: `html` escapes each
 * interpolated value unless it is `Raw` (markup built here), so a title such as
 * `<script>` renders as text.
 */
export class Raw {
  constructor(readonly markup: string) {}
  toString() {
    return this.markup
  }
}

const needsEscaping = /[&<>"']/

export const escapeHtml = (text: string): string =>
  !needsEscaping.test(text)
    ? text
    : text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
      /'/g,
      "&#39;"
    )

type Value = string | number | Raw | null | undefined | false | ReadonlyArray<Value>

const render = (value: Value): string =>
  value === null || value === undefined || value === false
    ? ""
    : value instanceof Raw
    ? value.markup
    : Array.isArray(value)
    ? value.map(render).join("")
    : escapeHtml(String(value))

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Value>): Raw =>
  new Raw(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i] as Value) : ""), ""))

/**
 * A catalogue message (i18n/messages) as markup: `message` is called with its values, a string
 * escaped, a number as it is and `Raw` as its markup (a link, a `<time>`), and what it returns is
 * kept as it is: catalogue text is ours and holds no markup, and each language places the values
 * where its word order wants them.
 */
export const fill = <A extends ReadonlyArray<string | number>>(
  message: (...args: A) => string,
  ...args: { readonly [K in keyof A]: A[K] extends number ? number : string | Raw }
): Raw =>
  new Raw(
    message(
      ...(args.map((arg) => arg instanceof Raw ? arg.markup : typeof arg === "string" ? escapeHtml(arg) : arg) as never)
    )
  )
