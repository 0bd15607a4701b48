/** The Performance page: being built (issue 41); the navigation already leads here. */
export function Performance() {
  return <h1>Performance</h1>;
}
