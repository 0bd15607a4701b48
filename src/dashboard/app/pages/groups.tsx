/** The Groups page: being built (issue 41); the navigation already leads here. */
export function Groups() {
  return <h1>Groups</h1>;
}
