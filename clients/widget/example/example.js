// The page's own logic: it reads each check from the `netintel:result` event and decides for
// itself (the widget never blocks the form). Here it only shows the verdict.
document.getElementById('email').addEventListener('netintel:result', (event) => {
  const { result, error } = event.detail;
  document.getElementById('verdict').textContent = result
    ? `verdict: ${result.verdict}`
    : `not checked: ${error}`;
});
document.getElementById('signup').addEventListener('submit', (event) => event.preventDefault());
