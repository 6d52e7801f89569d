import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-lock", [{ scenario: "recipe-lock-naive-retry" }, { scenario: "recipe-lock-naive-herd" }]);
