/** The Services page: being built (issue 41); the navigation already leads here. */
export function Services() {
  return <h1>Services</h1>;
}
