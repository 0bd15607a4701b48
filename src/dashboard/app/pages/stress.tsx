/** The Stress page: being built (issue 41); the navigation already leads here. */
export function Stress() {
  return <h1>Stress</h1>;
}
