/*
 * xshot.c -- what an X server's screen shows, as a PNG: the window
 * test's independent look at the window (what the X server was given,
 * not the picture the program drew into).  Usage: xshot OUT.png, with
 * DISPLAY set.  Exit status 0, or 1 with a message.
 */
#include <stdio.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <cairo.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: xshot OUT.png\n");
        return 1;
    }
    Display *d = XOpenDisplay(NULL);
    if (d == NULL) {
        fprintf(stderr, "xshot: cannot open the display\n");
        return 1;
    }
    Window root = DefaultRootWindow(d);
    XWindowAttributes at;
    XGetWindowAttributes(d, root, &at);
    XImage *im = XGetImage(d, root, 0, 0, (unsigned)at.width,
                           (unsigned)at.height, AllPlanes, ZPixmap);
    if (im == NULL || im->bits_per_pixel != 32) {
        fprintf(stderr, "xshot: cannot read the screen (or not 32 bits a "
                        "pixel)\n");
        return 1;
    }
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, at.width, at.height);
    unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    cairo_surface_flush(s);
    for (int y = 0; y < at.height; y++)
        for (int x = 0; x < at.width; x++) {
            unsigned long p = XGetPixel(im, x, y);
            *(unsigned int *)(void *)(px + y * stride + x * 4) =
                (unsigned int)(p & 0xffffff);
        }
    cairo_surface_mark_dirty(s);
    int rc =
        cairo_surface_write_to_png(s, argv[1]) == CAIRO_STATUS_SUCCESS ? 0 : 1;
    cairo_surface_destroy(s);
    XDestroyImage(im);
    XCloseDisplay(d);
    return rc;
}
