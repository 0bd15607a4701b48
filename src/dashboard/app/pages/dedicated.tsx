/** The Dedicated page: being built (issue 41); the navigation already leads here. */
export function Dedicated() {
  return <h1>Dedicated</h1>;
}
