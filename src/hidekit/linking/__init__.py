"""Records and notes de-identified together (HIDE 2.2): link them into a person-centric identifier
view, anonymize the view, write its generalized values back into the text. In memory: the files
are read and written by the link job (``hidekit.jobs.link_job``)."""

from hidekit.linking.attributes import ATTRIBUTES, Attribute
from hidekit.linking.experiment import hide_figure3
from hidekit.linking.link import Linked, LinkReport, link
from hidekit.linking.release import LinkedRelease, release

__all__ = [
    "ATTRIBUTES",
    "Attribute",
    "LinkReport",
    "Linked",
    "LinkedRelease",
    "hide_figure3",
    "link",
    "release",
]
