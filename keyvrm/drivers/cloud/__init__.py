"""Cloud drivers: read the region's topology and servers from Nova/Placement, act on them."""
