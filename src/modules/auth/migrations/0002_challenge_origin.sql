-- Who a login challenge was minted for: 'game' (the in-game command, through the bridge) or
-- 'public' (a name typed on the login page: deliver-magic-link). Only 'game' rows count against
-- max_generates_per_minute; public delivery has a budget of its own, so strangers naming a
-- player on the login page never use up that player's in-game codes and links.
ALTER TABLE auth_challenges ADD COLUMN origin TEXT NOT NULL DEFAULT 'game' CHECK (origin IN ('game', 'public'));
