/** The Plugins page: being built (issue 41); the navigation already leads here. */
export function Plugins() {
  return <h1>Plugins</h1>;
}
