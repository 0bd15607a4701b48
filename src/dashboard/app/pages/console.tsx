/** The Console page: being built (issue 41); the navigation already leads here. */
export function Console() {
  return <h1>Console</h1>;
}
