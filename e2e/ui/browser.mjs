// browser.mjs drives `ccmem ui` in headless Chromium for TestUIInABrowser:
// it opens the address ccmem printed, walks every page as a person would
// (links, the keyboard, the forms), screenshots each, accepts the pending
// item, and prints what it saw as one JSON object for the Go test to check.
//
// Usage: node browser.mjs URL OUTDIR QUERY PENDING
// PLAYWRIGHT_CORE is the folder holding playwright-core; CHROMIUM the
// browser to drive.
import { createRequire } from "node:module";
import path from "node:path";

const [url, outDir, query, pending] = process.argv.slice(2);
const require = createRequire(path.join(process.env.PLAYWRIGHT_CORE, "x.js"));
const { chromium } = require("playwright-core");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps"],
});
const out = { pages: [], console: [], requests: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, colorScheme: "light" });
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") out.console.push(m.text()); });
  page.on("pageerror", (e) => out.console.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith("http://127.0.0.1:")) out.requests.push(r.url()); });
  const shot = async (name) => {
    const file = path.join(outDir, name + ".png");
    await page.screenshot({ path: file, fullPage: true });
    out.pages.push({ name, url: page.url().replace(/token=[0-9a-f]+/, "token=…"), title: await page.title(), file });
  };

  // The printed address: the token becomes a cookie and leaves the address.
  await page.goto(url);
  out.landed = page.url();
  await shot("projects");
  // The same page in the dark.
  await page.emulateMedia({ colorScheme: "dark" });
  await shot("projects-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // A project: the block its next session gets.
  await page.getByRole("link", { name: "shop", exact: true }).click();
  await page.waitForSelector("#block");
  out.block = await page.locator("#block").textContent();
  out.budgetSegments = await page.locator("svg.bar rect.sec").count();
  await shot("project");

  // A session from the timeline, to its digest.
  await page.locator("ol.timeline li a").filter({ hasText: query }).first().click();
  await page.waitForSelector("ol.digest, p.muted");
  out.episodeTitle = await page.locator("h1").textContent();
  out.episodeText = await page.locator("main").textContent();
  await shot("episode");

  // Friction over time.
  await page.goBack();
  await page.getByRole("link", { name: "friction over time" }).click();
  await page.waitForSelector("#friction-chart");
  const box = await page.locator("#friction-chart").boundingBox();
  out.chart = { width: box ? box.width : 0, height: box ? box.height : 0, bars: await page.locator("#friction-chart rect").count() };
  await shot("friction");

  // Search, from the keyboard: "/" jumps to the box.
  await page.keyboard.press("/");
  out.searchFocused = await page.evaluate(() => document.activeElement && document.activeElement.id);
  await page.keyboard.type(query);
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/search\?q=/);
  out.hits = await page.locator("li.hit").allTextContents();
  out.hitLinks = await page.locator("li.hit a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  await shot("search");

  // Learned memory: accept the pending item, answering the question.
  await page.getByRole("link", { name: "Learned" }).click();
  await shot("learned");
  await page.getByRole("button", { name: "Accept " + pending }).click();
  await page.waitForSelector("form.confirm");
  out.confirmText = await page.locator("main").textContent();
  await shot("confirm");
  await page.getByRole("button", { name: /^Yes, accept/ }).click();
  await page.waitForURL(/\/learned\?done=/);
  out.done = await page.locator("p.done").textContent();
  await shot("accepted");

  // On a phone (390 px wide): no page is wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  out.narrow = {};
  for (const [name, link] of [["learned", null], ["projects", "Projects"], ["project", "shop"]]) {
    if (link) await page.getByRole("link", { name: link, exact: true }).first().click();
    await page.waitForLoadState("load");
    out.narrow[name] = await page.evaluate(() => document.documentElement.scrollWidth);
    // What sticks out, to say why.
    out.wide = (out.wide || []).concat(await page.evaluate((n) => [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > 392 && el.children.length === 0)
      .slice(0, 5).map((el) => n + ": <" + el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? " class=" + el.className : "") + "> " + (el.textContent || "").slice(0, 60)), name));
    await shot("narrow-" + name);
  }
} catch (e) {
  out.error = String(e && e.stack || e);
  try {
    const page = browser.contexts()[0].pages()[0];
    out.errorPage = { url: page.url().replace(/token=[0-9a-f]+/, "token=…"), text: (await page.locator("body").textContent()).slice(0, 2000) };
    await page.screenshot({ path: path.join(outDir, "error.png"), fullPage: true });
  } catch {}
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
