"""Admin -> KeyVRM -> Aggregates: availability zones, their aggregates, aggregate and event pages."""
