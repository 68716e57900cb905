"""Placeholder for 0007 of the hosts-sql branch (hypervisors tables), so 0008 chains in this branch

This branch (microversions) does not have that branch's 0007 yet. This revision changes
nothing; when the two branches meet, delete this file and keep their 0007
(0007_hypervisors.py), which 0008 follows.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05 10:00:00
"""

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    pass
