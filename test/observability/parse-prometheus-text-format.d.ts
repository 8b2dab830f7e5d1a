declare module "parse-prometheus-text-format" {
  interface Family {
    readonly name: string
    readonly type: string
    readonly metrics: ReadonlyArray<{ readonly value?: string; readonly labels?: Record<string, string> }>
  }
  const parse: (text: string) => Array<Family>
  export default parse
}
