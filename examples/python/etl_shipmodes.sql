-- A small dimension table for etl_job.py: which carrier ships each of lineitem's ship modes.
-- Load it into the embedded server with --data examples/python/etl_shipmodes.sql.
CREATE TABLE shipmodes (l_shipmode VARCHAR NOT NULL, carrier VARCHAR NOT NULL, days INTEGER);
INSERT INTO shipmodes VALUES
  ('AIR', 'SkyFreight', 2), ('REG AIR', 'SkyFreight', 3), ('RAIL', 'IronLine', 6),
  ('SHIP', 'BlueWave', 20), ('TRUCK', 'RoadRunner', 4), ('MAIL', 'PostCo', 7),
  ('FOB', 'BuyerCollects', NULL);
